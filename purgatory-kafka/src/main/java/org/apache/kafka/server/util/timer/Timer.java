package org.apache.kafka.server.util.timer;

/**
 * Kafka's timer interface (kafka-server-common 4.4.0), unchanged: what Kafka's purgatory, coordinators and
 * reapers schedule {@link TimerTask}s on. Implementations are thread-safe.
 *
 * <p>Provided by purgatory-kafka so that the module's package is whole on its own; the signatures are
 * Kafka's, checked against Kafka's jar by the module's build.
 */
public interface Timer extends AutoCloseable {

    /** Schedules {@code timerTask} to run once, about {@code timerTask.delayMs} from now. */
    void add(TimerTask timerTask);

    /**
     * Runs (or lets run) the tasks that are due, waiting at most {@code timeoutMs} for one to be.
     *
     * @return whether any task ran
     */
    boolean advanceClock(long timeoutMs) throws InterruptedException;

    /** Tasks scheduled and neither run nor cancelled yet. */
    int size();
}
