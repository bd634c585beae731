package io.purgatory.timer;

/**
 * Schedules {@link TimerTask}s to run once after their delay, and callbacks to run once or again and
 * again. Implementations are thread-safe.
 *
 * <p>The callback forms hand back a {@link ScheduledTask}, a handle to cancel with, and need no
 * subclass. Recurring callbacks run one run at a time: a run never overlaps the previous one of the
 * same callback.
 *
 * <h2>What happens to an exception</h2>
 * A callback that throws a {@code RuntimeException} or an {@code Error} other than a
 * {@link VirtualMachineError} is logged at WARN through slf4j, once per throw, with its stack trace,
 * and the timer carries on: the other tasks run, and a recurring callback keeps its schedule. The
 * log is the only trace: with no slf4j provider on the class path (slf4j then says once, at
 * start-up, that it found none) a failing callback is silent, so a callback whose failures matter
 * catches them itself. A {@code VirtualMachineError} ({@code OutOfMemoryError},
 * {@code StackOverflowError}) is not caught by the callback's wrapper, as executors do not catch it:
 * it reaches the thread that ran the callback, which for {@link SystemTimer} logs it at ERROR and
 * goes on with the next task, and for {@link MockTimer} is the caller of {@code advance}; a
 * recurring callback it ends is not scheduled again. A {@link TimerTask} subclass's own
 * {@code run()} is not wrapped: {@code SystemTimer} logs whatever it throws at ERROR, and
 * {@code MockTimer.advance} throws it to its caller.
 */
public interface Timer extends AutoCloseable {

    /**
     * Runs {@code task.run()} once, about {@code task.delayMs()} from now, unless it is cancelled
     * first. A task that was cancelled before it was added is ignored.
     *
     * @throws IllegalStateException if the task was already added to a timer, or the timer is closed
     */
    void add(TimerTask task);

    /**
     * Runs {@code callback} once, {@code delayMs} or a little more from now, unless the returned handle
     * is cancelled first (Netty's {@code newTimeout}, Go's {@code AfterFunc}).
     *
     * @throws IllegalArgumentException if delayMs is negative
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask schedule(Runnable callback, long delayMs);

    /**
     * Runs {@code callback} at a fixed rate: first {@code initialDelayMs} from now, then every
     * {@code periodMs} after that first deadline, whatever each run costs: run {@code k} is due at
     * {@code first + k * periodMs}, so the rate does not drift. <b>Missed runs are skipped, not
     * replayed</b>: after a pause longer than a period (a slow run, a busy timer thread, a suspended
     * process), the next run is the first one of that grid not before the clock, and runs go on on the
     * same grid. (Java's {@code scheduleAtFixedRate} replays the missed runs back to back instead.)
     *
     * @throws IllegalArgumentException if initialDelayMs is negative or periodMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask scheduleAtFixedRate(Runnable callback, long initialDelayMs, long periodMs);

    /**
     * Runs {@code callback} first {@code initialDelayMs} from now, then each time {@code delayMs} after
     * the previous run ended.
     *
     * @throws IllegalArgumentException if initialDelayMs is negative or delayMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask scheduleWithFixedDelay(Runnable callback, long initialDelayMs, long delayMs);

    /**
     * Runs {@code callback} at the deadlines {@code schedule} gives (Go timingwheel's
     * {@code ScheduleFunc}): the first is {@code schedule.nextDeadlineMs(now, now)}, each next one is
     * asked right after a run, until the schedule returns {@link Schedule#STOP}. A schedule that
     * throws, or gives a deadline not after the previous one, is stopped and logged at WARN.
     *
     * @throws IllegalArgumentException if the first deadline is before the clock
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask schedule(Runnable callback, Schedule schedule);

    /**
     * Tasks and callbacks scheduled and neither run nor cancelled yet; a recurring callback counts
     * until it is cancelled or its schedule ends. 0 once the timer is closed.
     */
    int size();

    /**
     * The timer's clock in milliseconds: monotonic, with an arbitrary origin. Deadlines are
     * {@code nowMs()} at add time plus the task's delay.
     */
    long nowMs();

    /**
     * Stops the timer; tasks and callbacks not yet run are not run, recurring ones are not scheduled
     * again, and how many were pending is logged at INFO. Idempotent.
     */
    @Override
    void close();
}
