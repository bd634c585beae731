package io.purgatory.timer;

import java.time.Duration;

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
     * @param task the task, never added before
     * @throws IllegalStateException if the task was already added to a timer, or the timer is closed
     */
    void add(TimerTask task);

    /**
     * Runs {@code callback} once, {@code delayMs} or a little more from now, unless the returned handle
     * is cancelled first (Netty's {@code newTimeout}, Go's {@code AfterFunc}).
     *
     * @param callback what to run
     * @param delayMs how long from now it runs, in milliseconds; not negative
     * @return the handle that cancels it
     * @throws IllegalArgumentException if delayMs is negative
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask schedule(Runnable callback, long delayMs);

    /**
     * {@link #schedule(Runnable, long)} with the delay as a {@link Duration}, in whole milliseconds
     * (a fraction of one is dropped; longer than {@code Long.MAX_VALUE} ms: never).
     *
     * @param callback what to run
     * @param delay how long from now it runs; not negative
     * @return the handle that cancels it
     * @throws IllegalArgumentException if delay is negative
     * @throws IllegalStateException if the timer is closed
     */
    default ScheduledTask schedule(Runnable callback, Duration delay) {
        return schedule(callback, Delays.toMs(delay, "delay"));
    }

    /**
     * Runs {@code callback} at a fixed rate: first {@code initialDelayMs} from now, then every
     * {@code periodMs} after that first deadline, whatever each run costs: run {@code k} is due at
     * {@code first + k * periodMs}, so the rate does not drift. <b>Missed runs are skipped, not
     * replayed</b>: after a pause longer than a period (a slow run, a busy timer thread, a suspended
     * process), the next run is the first one of that grid not before the clock, and runs go on on the
     * same grid. (Java's {@code scheduleAtFixedRate} replays the missed runs back to back instead.)
     *
     * @param callback what to run
     * @param initialDelayMs how long from now the first run is due, in milliseconds; not negative
     * @param periodMs the time between two runs' deadlines, in milliseconds; positive
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelayMs is negative or periodMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask scheduleAtFixedRate(Runnable callback, long initialDelayMs, long periodMs);

    /**
     * {@link #scheduleAtFixedRate(Runnable, long, long)} with the times as {@link Duration}s, in
     * whole milliseconds (a fraction of one is dropped).
     *
     * @param callback what to run
     * @param initialDelay how long from now the first run is due; not negative
     * @param period the time between two runs' deadlines; at least a millisecond
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelay is negative or period is under a millisecond
     * @throws IllegalStateException if the timer is closed
     */
    default ScheduledTask scheduleAtFixedRate(Runnable callback, Duration initialDelay, Duration period) {
        return scheduleAtFixedRate(callback, Delays.toMs(initialDelay, "initialDelay"), Delays.toMs(period, "period"));
    }

    /**
     * Runs {@code callback} first {@code initialDelayMs} from now, then each time {@code delayMs} after
     * the previous run ended.
     *
     * @param callback what to run
     * @param initialDelayMs how long from now the first run is due, in milliseconds; not negative
     * @param delayMs the time from the end of one run to the next one's deadline, in milliseconds; positive
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelayMs is negative or delayMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask scheduleWithFixedDelay(Runnable callback, long initialDelayMs, long delayMs);

    /**
     * {@link #scheduleWithFixedDelay(Runnable, long, long)} with the times as {@link Duration}s, in
     * whole milliseconds (a fraction of one is dropped).
     *
     * @param callback what to run
     * @param initialDelay how long from now the first run is due; not negative
     * @param delay the time from the end of one run to the next run's deadline; at least a millisecond
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelay is negative or delay is under a millisecond
     * @throws IllegalStateException if the timer is closed
     */
    default ScheduledTask scheduleWithFixedDelay(Runnable callback, Duration initialDelay, Duration delay) {
        return scheduleWithFixedDelay(callback, Delays.toMs(initialDelay, "initialDelay"), Delays.toMs(delay, "delay"));
    }

    /**
     * Runs {@code callback} at the deadlines {@code schedule} gives (Go timingwheel's
     * {@code ScheduleFunc}): the first is {@code schedule.nextDeadlineMs(now, now)}, each next one is
     * asked right after a run, until the schedule returns {@link Schedule#STOP}. A schedule that
     * throws, or gives a deadline not after the previous one, is stopped and logged at WARN.
     *
     * @param callback what to run
     * @param schedule gives each deadline, in milliseconds on the timer's clock
     * @return the handle that cancels it
     * @throws IllegalArgumentException if the first deadline is before the clock
     * @throws IllegalStateException if the timer is closed
     */
    ScheduledTask schedule(Runnable callback, Schedule schedule);

    /**
     * Tasks and callbacks scheduled and neither run nor cancelled yet; a recurring callback counts
     * until it is cancelled or its schedule ends. 0 once the timer is closed.
     *
     * @return the pending tasks and callbacks
     */
    int size();

    /**
     * The timer's clock in milliseconds: monotonic, with an arbitrary origin. Deadlines are
     * {@code nowMs()} at add time plus the task's delay.
     *
     * @return the time now, in milliseconds
     */
    long nowMs();

    /**
     * Stops the timer; tasks and callbacks not yet run are not run, recurring ones are not scheduled
     * again, and how many were pending is logged at INFO. Idempotent.
     */
    @Override
    void close();
}
