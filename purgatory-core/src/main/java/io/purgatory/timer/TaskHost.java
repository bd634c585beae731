package io.purgatory.timer;

/**
 * What a {@link TimerTask} needs from the timer it was added to. An abstract class rather than an
 * interface so that its method stays package-private: a public timer extends it without exposing a
 * hook whose call would corrupt the timer. Implementations are thread-safe: a task may be cancelled
 * from any thread.
 */
abstract class TaskHost {

    /**
     * Called once, by the thread whose {@link TimerTask#cancel()} won, after the task moved from
     * {@code previousState} (QUEUED or SCHEDULED) to CANCELLED. Must not block for long.
     */
    abstract void cancelled(TimerTask task, int previousState);
}
