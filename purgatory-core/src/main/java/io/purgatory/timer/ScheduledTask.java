package io.purgatory.timer;

/**
 * The handle of a callback scheduled on a {@link Timer}: once ({@link Timer#schedule(Runnable, long)}),
 * or again and again ({@link Timer#scheduleAtFixedRate}, {@link Timer#scheduleWithFixedDelay},
 * {@link Timer#schedule(Runnable, Schedule)}). The handle is the timer's own node for the callback:
 * holding it costs nothing beyond what the timer holds anyway, and a recurring callback uses one
 * handle for all its runs.
 *
 * <p>Thread-safe: every method may be called from any thread, including from the callback itself.
 */
public interface ScheduledTask {

    /**
     * Stops the callback: a run not yet started never starts, and a recurring callback is never
     * scheduled again. A run already under way finishes (this call does not wait for it). Called
     * from inside the callback, it ends a recurring callback after the current run.
     *
     * @return true if this call stopped it; false if it was already cancelled, or will not run again
     *     anyway (a one-shot callback that has been handed over to run, or a recurring one whose
     *     schedule has ended)
     */
    boolean cancel();

    /**
     * True once {@link #cancel()} has returned true.
     *
     * @return whether a cancel stopped it
     */
    boolean isCancelled();

    /**
     * True once no run is pending: the callback was cancelled, or it will not be scheduled again (a
     * one-shot callback has been handed over to run, a recurring one's schedule has ended). The last
     * run may still be under way. Closing the timer does not change the handle of a callback waiting
     * for its deadline: dropped by {@link Timer#close()}, it is neither done nor cancelled; a recurring
     * callback running at the close is done after that run.
     *
     * @return whether no run is pending
     */
    boolean isDone();

    /**
     * The deadline of the pending run (of the current one while it runs), in milliseconds on the
     * timer's clock ({@link Timer#nowMs()}); once done, the deadline of the last run. The callback
     * runs at or after it, never before.
     *
     * @return the deadline, in milliseconds on the timer's clock
     */
    long deadlineMs();
}
