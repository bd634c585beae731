package io.purgatory.timer;

/**
 * When a recurring callback runs next: a function from the deadline of the run that just ended to
 * the deadline of the next one, in milliseconds on the timer's clock ({@link Timer#nowMs()}). This
 * is Go timingwheel's {@code Scheduler.Next}; a cron rule, a back-off or a fixed calendar plugs in
 * here ({@link Timer#schedule(Runnable, Schedule)}).
 *
 * <p>The timer calls it on its own thread right after each run (never while another call for the
 * same callback is under way), and once at scheduling for the first deadline, with
 * {@code previousDeadlineMs} and {@code nowMs} both the clock at that moment. It should be quick and
 * must not block. Implementations need not be thread-safe unless shared between callbacks.
 */
@FunctionalInterface
public interface Schedule {

    /** Returned by {@link #nextDeadlineMs} to end the schedule: the callback is then done. */
    long STOP = Long.MIN_VALUE;

    /**
     * The next deadline. A deadline already passed runs at once: it is up to the schedule whether
     * runs missed during a pause are replayed (return the next missed one) or skipped (return one
     * after {@code nowMs}).
     *
     * @param previousDeadlineMs the deadline of the run that just ended (on the first call, the clock at scheduling)
     * @param nowMs the timer's clock now, after the run ended
     * @return the next deadline, later than {@code previousDeadlineMs} (on the first call: not before
     *     it); or {@link #STOP}. Any other value ends the schedule too, and the timer logs it at WARN
     */
    long nextDeadlineMs(long previousDeadlineMs, long nowMs);
}
