package io.purgatory;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counts a purgatory keeps of its watches. Thread-safe: each count is a {@link LongAdder}, so
 * threads that complete operations at the same time do not contend on one counter.
 * {@code linked} is exact once updates settle; {@code tombstones} counts watches whose operation
 * completed but that are still linked, and is what the purge reaper looks at.
 */
final class WatchCounts {

    /** Watches linked into some key's list. */
    final LongAdder linked = new LongAdder();
    /** Linked watches whose operation has completed (or was cancelled out of the purgatory). */
    final LongAdder tombstones = new LongAdder();

    /** Tombstones were unlinked from a list. */
    void unlinked(long count) {
        if (count > 0) {
            linked.add(-count);
            tombstones.add(-count);
        }
    }
}
