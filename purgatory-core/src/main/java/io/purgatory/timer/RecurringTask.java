package io.purgatory.timer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A callback that runs again and again on one node: after each run the timer links the same task
 * back in with its next deadline, so a recurring callback allocates nothing per run.
 *
 * <p>Each run: a task cancelled since it was taken from the wheel does not start; otherwise the
 * callback runs (what it throws is logged, and the recurrence goes on: one bad run does not end a
 * periodic job); then the next deadline is asked of the subclass and the task goes back to its
 * timer ({@link TaskHost#reschedule}), which links it in unless a {@code cancel()} won in the
 * meantime, or ends it. The next deadline is always computed from this task's own deadline, kept
 * exact in milliseconds (the timer's due tick may be rounded up to its tick), so a fixed rate never
 * drifts.
 *
 * <p>Three schedules, as Java's {@code ScheduledExecutorService} and Go's timingwheel have them:
 * {@link FixedRate}, {@link FixedDelay}, and any {@link Schedule} ({@link Custom}). The period of the
 * first two is kept in the {@link TimerTask#delayMs()} field, which a recurring task does not
 * otherwise use (its first deadline is given at scheduling): 64 bytes per recurring callback, one
 * {@code long} more than a one-shot one.
 *
 * <p>Thread-safe. {@code deadlineMs} is written by the thread that schedules the task and then only
 * by the thread running it (one run at a time), before each hand-over to the timer; it is volatile
 * so that {@link #deadlineMs()} reads it from any thread.
 */
abstract class RecurringTask extends CallbackTask {

    private static final Logger LOG = LoggerFactory.getLogger(ScheduledTask.class);

    private volatile long deadlineMs;

    RecurringTask(long periodMs, Runnable callback) {
        super(periodMs, callback);
    }

    /** Sets the first deadline; before the task is handed to its timer. */
    final void firstDeadline(long firstDeadlineMs) {
        this.deadlineMs = firstDeadlineMs;
    }

    @Override
    public final void run() {
        if (isCancelled()) {
            return; // cancelled after the timer took it from the wheel, before it started
        }
        runCallback();
        TaskHost host = host();
        assert host != null; // it ran: it was added
        long previous = deadlineMs;
        long next;
        try {
            next = nextDeadlineMs(previous, host);
        } catch (RuntimeException e) {
            LOG.warn("Timer {}: the schedule of {} threw; it is stopped", host, this, e);
            host.finished(this);
            return;
        }
        if (next == Schedule.STOP) {
            host.finished(this);
        } else if (next <= previous) {
            LOG.warn("Timer {}: the schedule of {} gave {} ms, not after its previous deadline {} ms; it is stopped", host, this, next, previous);
            host.finished(this);
        } else {
            deadlineMs = next;
            host.reschedule(this, next);
        }
    }

    /** The deadline after {@code previousDeadlineMs}, or {@link Schedule#STOP}; on the thread that ran the task. */
    abstract long nextDeadlineMs(long previousDeadlineMs, TaskHost host);

    @Override
    public final long deadlineMs() {
        return deadlineMs;
    }

    /**
     * Fixed rate: run {@code k} is due at the first deadline plus {@code k} periods, whatever the runs
     * cost, so the rate does not drift. Runs missed by a pause (a run that took longer than a period,
     * a stalled executor, a suspended JVM) are skipped, not replayed in a burst: the next deadline is
     * the first one of that grid after the clock. Java's {@code scheduleAtFixedRate} replays them
     * instead; Netty's and Go's re-adding loops drift.
     */
    static final class FixedRate extends RecurringTask {

        FixedRate(long periodMs, Runnable callback) {
            super(periodMs, callback);
        }

        @Override
        long nextDeadlineMs(long previousDeadlineMs, TaskHost host) {
            return nextOnGrid(previousDeadlineMs, delayMs(), host.gridClockMs());
        }

        /**
         * The first of {@code previous + k * period} (k &ge; 1) that is not before {@code now}: the next
         * run if it is not late yet, else the first run of the grid still to come (one due right now
         * counts as to come). Saturated at Long.MAX_VALUE.
         */
        static long nextOnGrid(long previous, long period, long now) {
            long behind = now - previous; // both are on the timer's clock, which is never negative
            long periods = behind <= period ? 1 : 1 + ceilDiv(behind - period, period);
            long step = Math.multiplyHigh(periods, period) == 0 ? periods * period : Long.MAX_VALUE;
            return step < 0 || previous > Long.MAX_VALUE - step ? Long.MAX_VALUE : previous + step;
        }

        private static long ceilDiv(long x, long y) {
            return -Math.floorDiv(-x, y);
        }
    }

    /** Fixed delay: each run is due a period after the previous one ended (never earlier). */
    static final class FixedDelay extends RecurringTask {

        FixedDelay(long delayMs, Runnable callback) {
            super(delayMs, callback);
        }

        @Override
        long nextDeadlineMs(long previousDeadlineMs, TaskHost host) {
            return host.deadlineAfter(delayMs());
        }
    }

    /** Deadlines from a user's {@link Schedule}. */
    static final class Custom extends RecurringTask {

        private final Schedule schedule;

        Custom(Schedule schedule, Runnable callback) {
            super(0, callback);
            this.schedule = schedule;
        }

        @Override
        long nextDeadlineMs(long previousDeadlineMs, TaskHost host) {
            return schedule.nextDeadlineMs(previousDeadlineMs, host.nowMs());
        }
    }
}
