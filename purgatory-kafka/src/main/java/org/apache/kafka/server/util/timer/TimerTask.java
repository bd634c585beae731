package org.apache.kafka.server.util.timer;

import io.purgatory.kafka.KafkaTaskState;

/**
 * Kafka's timer task, as in kafka-server-common 4.4.0: {@link #run()} runs once, {@link #delayMs} after
 * the task is added to a {@link Timer}, unless {@link #cancel()} comes first.
 *
 * <p><b>Kafka's contract, kept.</b> A task holds the {@link TimerTaskEntry} of its latest add; adding it
 * again replaces (and removes) the earlier one. {@link #cancel()} removes the current one;
 * {@link #isCancelled()} is true while the task holds none (before it is added, and after a cancel).
 * Any delay is accepted; zero or less runs the task at once, on the timer's thread. Foreign timers
 * (Kafka's test {@code MockTimer}) make their own entries with {@code new TimerTaskEntry(task, ms)}
 * and work as with Kafka's.
 *
 * <p><b>What purgatory-kafka changes.</b> The task is its own node in purgatory-core's timing wheel
 * ({@link KafkaTaskState}): the first add to the module's {@link SystemTimer} links the task itself,
 * with no entry object (the task then holds its timer's shared marker entry), and {@code cancel()}
 * unlinks it in O(1) within a bounded time, instead of when its bucket comes round. A later add of the
 * same task (Kafka allows it) goes through an entry, as in Kafka.
 *
 * <p>Thread-safe: the entry is swapped under the task's monitor, as in Kafka.
 */
public abstract class TimerTask extends KafkaTaskState implements Runnable {

    /** The delay given at construction, in milliseconds. */
    public final long delayMs;

    /** The entry of the latest add (or its timer's marker, when the task is its own node there); null before one and after a cancel. */
    private volatile TimerTaskEntry timerTaskEntry;

    /** @param delayMs how long after {@code Timer.add} the task runs; zero or less means at once */
    public TimerTask(long delayMs) {
        this.delayMs = delayMs;
    }

    /** Removes the task from its timer, if it is in one; it then does not run (unless it already started). */
    public void cancel() {
        synchronized (this) {
            leave(timerTaskEntry); // before the swap: a node finds its timer through its timer's marker
            timerTaskEntry = null;
        }
    }

    /** True while the task holds no entry: not added yet, or cancelled. */
    public boolean isCancelled() {
        return timerTaskEntry == null;
    }

    /** Makes {@code entry} the task's entry, removing the one it replaces. Called by the entry's constructor. */
    final void setTimerTaskEntry(TimerTaskEntry entry) {
        synchronized (this) {
            if (timerTaskEntry != entry) {
                leave(timerTaskEntry);
            }
            timerTaskEntry = entry;
        }
    }

    /** The entry of the latest add, or null. */
    TimerTaskEntry getTimerTaskEntry() {
        return timerTaskEntry;
    }

    /**
     * Links the task itself into {@code wheel}, if its node was never used, and makes {@code marker}
     * (its timer's) its entry.
     *
     * @return false if the node was used before: the caller adds the task through an entry
     */
    final boolean addAsNode(io.purgatory.timer.Timer wheel, long delayMs, TimerTaskEntry marker) {
        synchronized (this) {
            if (!purgatoryNodeUnused()) {
                return false;
            }
            leave(timerTaskEntry);
            timerTaskEntry = marker; // first: from the add on, the node finds its timer through the marker
            purgatorySchedule(wheel, delayMs);
            return true;
        }
    }

    private void leave(TimerTaskEntry entry) {
        if (entry == null) {
            return;
        }
        if (entry.isNodeMarker()) {
            purgatoryCancelNode();
        } else {
            entry.remove();
        }
    }

    // --- purgatory-core's hooks: a plain task is never offered to a purgatory, so only its run is used ---

    @Override
    protected boolean purgatoryTryComplete() {
        return false;
    }

    @Override
    protected void purgatoryOnComplete() {
    }

    @Override
    protected void purgatoryOnExpiration() {
    }

    @Override
    protected final long purgatoryDelayMs() {
        return Math.max(0, delayMs);
    }

    /** The core wheel of the SystemTimer whose marker the task holds, or null. */
    @Override
    protected final io.purgatory.timer.Timer purgatoryTimer() {
        TimerTaskEntry entry = timerTaskEntry;
        return entry == null ? null : entry.markerTimer();
    }

    /** The task's node is due on the module's SystemTimer: run it, and tell that timer. */
    @Override
    protected final void purgatoryRunDue() {
        TimerTaskEntry entry = timerTaskEntry;
        try {
            run();
        } finally {
            if (entry != null) {
                entry.ran();
            }
        }
    }
}
