package io.purgatory.timer;

/**
 * Schedules {@link TimerTask}s to run once after their delay. Implementations are thread-safe.
 */
public interface Timer extends AutoCloseable {

    /**
     * Runs {@code task.run()} once, about {@code task.delayMs()} from now, unless it is cancelled
     * first. A task that was cancelled before it was added is ignored.
     *
     * @throws IllegalStateException if the task was already added to a timer, or the timer is closed
     */
    void add(TimerTask task);

    /** Tasks added and neither run nor cancelled yet; 0 once the timer is closed. */
    int size();

    /**
     * The timer's clock in milliseconds: monotonic, with an arbitrary origin. Deadlines are
     * {@code nowMs()} at add time plus the task's delay.
     */
    long nowMs();

    /** Stops the timer; tasks not yet run are not run. Idempotent. */
    @Override
    void close();
}
