package io.purgatory.timer;

/** What a {@link TimerTask} needs from the timer it was added to. Implementations are thread-safe: a task may be cancelled from any thread. */
interface TaskHost {

    /**
     * Called once, by the thread whose {@link TimerTask#cancel()} won, after the task moved from
     * {@code previousState} (QUEUED or SCHEDULED) to CANCELLED. Must not block for long.
     */
    void cancelled(TimerTask task, int previousState);
}
