package io.purgatory;

import org.jspecify.annotations.Nullable;

/**
 * The counts of the completions made by one walk of a purgatory's watch list (a
 * {@code checkAndComplete} or an {@code advance}), added to the purgatory's counters once when the
 * walk ends instead of once per completion: a walk that completes n operations updates each shared
 * counter once, not n times. Meanwhile the purgatory's {@code numDelayed()}, its tombstone count and
 * its metrics' {@code completed} lag by the completions of the walks still running, never by more,
 * and are exact again once every walk has returned.
 *
 * <p>A walk tallies only the completions of its own purgatory on its own thread; a walk inside a
 * walk of the same purgatory (a {@code checkAndComplete} from an {@code onComplete}) adds to the
 * outer one's tally, and completions of other purgatories, or outside any walk, are counted at once.
 *
 * <p>Not thread-safe: one per thread ({@link #ofThread()}), touched by that thread only.
 */
final class WalkTally {

    private static final ThreadLocal<WalkTally> OF_THREAD = ThreadLocal.withInitial(WalkTally::new);

    /** The purgatory whose walk runs on this thread, or null. */
    private @Nullable DelayedOperationPurgatory<?> walking;
    /** Operations completed by their condition or a cancellation: the metrics' {@code completed}. */
    long completed;
    /** Operations that stopped being delayed (they were watching, and completed). */
    long unwatched;
    /** Tombstones their completions left in the lists. */
    long tombstones;

    private WalkTally() {
    }

    /** This thread's tally. */
    static WalkTally ofThread() {
        return OF_THREAD.get();
    }

    /**
     * Starts tallying the walk of {@code purgatory} on this thread, unless a walk already runs here.
     *
     * @return true if this call started it (the caller then ends it with {@link #end})
     */
    boolean start(DelayedOperationPurgatory<?> purgatory) {
        if (walking != null) {
            return false;
        }
        walking = purgatory;
        return true;
    }

    /** True while a walk of {@code purgatory} runs on this thread: its completions go into the tally. */
    boolean isWalking(DelayedOperationPurgatory<?> purgatory) {
        return walking == purgatory;
    }

    /** Ends the walk; the caller adds the counts to the purgatory's counters, then calls {@link #clear}. */
    void end() {
        walking = null;
    }

    void clear() {
        completed = 0;
        unwatched = 0;
        tombstones = 0;
    }
}
