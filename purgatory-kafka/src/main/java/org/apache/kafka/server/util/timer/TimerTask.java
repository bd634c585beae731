package org.apache.kafka.server.util.timer;

/**
 * Kafka's timer task, as in kafka-server-common 4.4.0: {@link #run()} runs once, {@link #delayMs} after
 * the task is added to a {@link Timer}, unless {@link #cancel()} comes first.
 *
 * <p><b>Kafka's contract, kept.</b> A task holds the {@link TimerTaskEntry} of its latest
 * {@code Timer.add}; adding it again replaces (and removes) the earlier entry. {@link #cancel()}
 * removes the current entry; {@link #isCancelled()} is true while the task holds no entry (before it
 * is added, and after a cancel). Any delay is accepted; a delay of zero or less runs the task at once
 * (on the timer's thread, not the caller's). Foreign timers (Kafka's test {@code MockTimer}) make
 * their own entries with {@code new TimerTaskEntry(task, expirationMs)} and work as with Kafka's.
 *
 * <p><b>What purgatory-kafka adds.</b> On the module's {@link SystemTimer} the entry is backed by a
 * node of purgatory-core's timing wheel, so {@code cancel()} unlinks the task in O(1) on the wheel's
 * thread within a bounded time, instead of when its bucket comes round: a cancelled task (and what it
 * references) is not kept until its deadline.
 *
 * <p>Thread-safe: the entry is swapped under the task's monitor, as Kafka does.
 */
public abstract class TimerTask implements Runnable {

    /** The delay given at construction, in milliseconds. */
    public final long delayMs;

    /** The entry of the latest add, null before one and after a cancel; written under {@code this}. */
    private volatile TimerTaskEntry timerTaskEntry;

    /** @param delayMs how long after {@code Timer.add} the task runs; zero or less means at once */
    public TimerTask(long delayMs) {
        this.delayMs = delayMs;
    }

    /** Removes the task from its timer, if it is in one; it then does not run (unless it already started). */
    public void cancel() {
        synchronized (this) {
            TimerTaskEntry entry = timerTaskEntry;
            timerTaskEntry = null;
            if (entry != null) {
                entry.remove();
            }
        }
    }

    /** True while the task holds no entry: not added yet, or cancelled. */
    public boolean isCancelled() {
        return timerTaskEntry == null;
    }

    /** Makes {@code entry} the task's entry, removing the one it replaces. Called by the entry's constructor. */
    final void setTimerTaskEntry(TimerTaskEntry entry) {
        synchronized (this) {
            TimerTaskEntry previous = timerTaskEntry;
            timerTaskEntry = entry;
            if (previous != null && previous != entry) {
                previous.remove();
            }
        }
    }

    /** The entry of the latest add, or null. */
    TimerTaskEntry getTimerTaskEntry() {
        return timerTaskEntry;
    }
}
