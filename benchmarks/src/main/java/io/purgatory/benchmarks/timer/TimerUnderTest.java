package io.purgatory.benchmarks.timer;

/**
 * One of the timer implementations the benchmarks compare, reduced to what they measure: add a
 * task, cancel it, let it expire.
 *
 * <p>Each implementation is used the way its API intends. Ours and Kafka's take a single-use task
 * object per add (ours links the task itself into the wheel; Kafka's wraps it in a
 * {@code TimerTaskEntry}); Netty's and the JDK's take a callback that can be shared, and allocate
 * their own handle ({@code HashedWheelTimeout}, {@code ScheduledFutureTask}). So the allocation a
 * benchmark reports per operation is what a caller of that API pays.
 *
 * <p>Thread-safe, as the timers are; a {@link Scheduler} is meant for one thread.
 */
public interface TimerUnderTest extends AutoCloseable {

    /** A scheduler whose tasks all call {@code onExpiry} when they run, on the timer's thread. */
    Scheduler<?> scheduler(Runnable onExpiry);

    /**
     * A starter of recurring tasks that all call {@code onRun} every {@code periodMs}, on the timer's
     * thread, the way this timer's users write it: with the timer's own fixed rate where it has one
     * (ours, the JDK's), else by re-adding a task from the task (Netty's, Kafka's). The tasks of one
     * starter share {@code onRun} and whatever the re-adding needs, so the heap a started task holds is
     * the timer's own cost per task.
     */
    Recurring recurring(Runnable onRun, long periodMs);

    /** Stops the timer and its threads; tasks not yet run are dropped. */
    @Override
    void close();

    /** Starts recurring tasks on one timer; see {@link TimerUnderTest#recurring}. Thread-safe. */
    interface Recurring {

        /** Starts one more recurring task, first due {@code initialDelayMs} from now; it runs until the timer is closed. */
        void start(long initialDelayMs);
    }

    /**
     * Adds and cancels tasks of one timer.
     *
     * @param <H> what the timer hands back for a scheduled task, needed to cancel it
     */
    interface Scheduler<H> {

        /** Schedules a task that runs {@code delayMs} from now unless cancelled first. */
        H add(long delayMs);

        /** Cancels a task that this scheduler added. */
        void cancel(H handle);
    }
}
