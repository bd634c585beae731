package io.purgatory.timer;

import io.purgatory.internal.Secrets;
import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import java.util.Objects;

/**
 * What a {@link TimerNode} needs from the timer it was added to, and the callback forms of
 * {@link Timer} built on it once for every timer. An abstract class rather than an interface so that
 * its hooks stay package-private: a public timer extends it without exposing a hook whose call would
 * corrupt the timer. Implementations are thread-safe: a task may be cancelled from any thread, and a
 * recurring task is handed back from the thread that ran it.
 */
abstract class TaskHost {

    static {
        // the control of foreign nodes (operations), for io.purgatory; registered with the first timer class
        Secrets.registerNodeControl(new ForeignNodeControl());
    }

    /**
     * Called once, by the thread whose {@link Nodes#cancel} won, after the task moved from
     * {@code previousState} (QUEUED, SCHEDULED, or FIRING for a recurring task taken to run) to
     * CANCELLED. Must not block for long.
     */
    abstract void cancelled(TimerNode task, int previousState);

    /** The timer's clock, as {@link Timer#nowMs()}. */
    abstract long nowMs();

    /**
     * The clock a fixed rate's next deadline is found from, on the thread that ran the task: at most
     * {@link #nowMs()}, and maybe earlier (a {@link SystemTimer} running tasks on its reaper gives the
     * time its round started, so that a run reads no clock). An earlier clock only means a run missed
     * by that much is not skipped: it falls due at once; no run is early, as every deadline is on the grid.
     */
    long gridClockMs() {
        return nowMs();
    }

    /** The earliest deadline, in ms on this timer's clock, that is at least {@code delayMs} from now; saturated. */
    abstract long deadlineAfter(long delayMs);

    /** The deadline in ms that a task's {@code dueTick} stands for: a task runs at or after it. */
    abstract long deadlineMsOfTick(long dueTick);

    /**
     * Schedules a task just queued (claimed by {@code TimerTask.claim}, or moved to QUEUED by {@code TimerNodes.queue}), to run at {@code deadlineMs},
     * and counts it as pending.
     *
     * @throws IllegalStateException if the timer is closed (the task is then cancelled)
     */
    abstract void start(TimerNode task, long deadlineMs);

    /**
     * Puts back a recurring task that has just run (state FIRING, still counted as pending), to run
     * again at {@code deadlineMs}; if it was cancelled during its run, or the timer is closed, it stays
     * out. Called by the thread that ran it.
     */
    abstract void reschedule(TimerNode task, long deadlineMs);

    /** Ends a recurring task that has just run (state FIRING) and will not run again: it is pending no more. */
    abstract void finished(TimerNode task);

    /**
     * {@link Timer#schedule(Runnable, long)}, for every timer.
     *
     * @param callback what to run
     * @param delayMs how long from now it runs, in milliseconds; not negative
     * @return the handle that cancels it
     * @throws IllegalArgumentException if delayMs is negative
     * @throws IllegalStateException if the timer is closed
     */
    public final ScheduledTask schedule(Runnable callback, long delayMs) {
        CallbackTask task = new CallbackTask(delayMs, callback);
        task.claim(this);
        start(task, deadlineAfter(delayMs));
        return task;
    }

    /**
     * {@link Timer#scheduleAtFixedRate}, for every timer.
     *
     * @param callback what to run
     * @param initialDelayMs how long from now the first run is due, in milliseconds; not negative
     * @param periodMs the time between two runs' deadlines, in milliseconds; positive
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelayMs is negative or periodMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    public final ScheduledTask scheduleAtFixedRate(Runnable callback, long initialDelayMs, long periodMs) {
        return startRecurring(new RecurringTask.FixedRate(positivePeriod(periodMs), callback), initialDelayMs);
    }

    /**
     * {@link Timer#scheduleWithFixedDelay}, for every timer.
     *
     * @param callback what to run
     * @param initialDelayMs how long from now the first run is due, in milliseconds; not negative
     * @param delayMs the time from the end of one run to the next one's deadline, in milliseconds; positive
     * @return the handle that cancels it
     * @throws IllegalArgumentException if initialDelayMs is negative or delayMs is not positive
     * @throws IllegalStateException if the timer is closed
     */
    public final ScheduledTask scheduleWithFixedDelay(Runnable callback, long initialDelayMs, long delayMs) {
        return startRecurring(new RecurringTask.FixedDelay(positivePeriod(delayMs), callback), initialDelayMs);
    }

    /**
     * {@link Timer#schedule(Runnable, Schedule)}, for every timer.
     *
     * @param callback what to run
     * @param schedule gives each deadline, in milliseconds on the timer's clock
     * @return the handle that cancels it
     * @throws IllegalArgumentException if the first deadline is before the clock
     * @throws IllegalStateException if the timer is closed
     */
    public final ScheduledTask schedule(Runnable callback, Schedule schedule) {
        Objects.requireNonNull(schedule, "schedule");
        RecurringTask task = new RecurringTask.Custom(schedule, callback);
        long now = nowMs();
        long first = schedule.nextDeadlineMs(now, now);
        if (first != Schedule.STOP && first < now) {
            throw new IllegalArgumentException("the schedule's first deadline " + first + " ms is before the clock " + now + " ms");
        }
        task.claim(this);
        if (first == Schedule.STOP) {
            TimerNodes.leaveQueue(task, TimerNodes.EXPIRED); // done before it ever ran
            return task;
        }
        task.firstDeadline(first);
        start(task, first);
        return task;
    }

    private ScheduledTask startRecurring(RecurringTask task, long initialDelayMs) {
        if (initialDelayMs < 0) {
            throw new IllegalArgumentException("initialDelayMs must not be negative: " + initialDelayMs);
        }
        long first = deadlineAfter(initialDelayMs);
        task.firstDeadline(first);
        task.claim(this);
        start(task, first);
        return task;
    }

    private static long positivePeriod(long periodMs) {
        if (periodMs <= 0) {
            throw new IllegalArgumentException("the period must be positive: " + periodMs);
        }
        return periodMs;
    }
}
