package io.purgatory;

import io.purgatory.internal.OperationState;
import org.jspecify.annotations.Nullable;

/**
 * One operation watching one of its keys other than the first (for the first, the operation is its
 * own entry in the key's {@link WatchList}), or, as a {@link PositionWatch}, any key it watches at a
 * position: an entry of that key's list. The operation links its watches through {@code sibling} so
 * that, when it completes, it can {@link #release} each of them: from then on a watch is a
 * <em>tombstone</em> of a few bytes that keeps nothing of the operation reachable, however long it
 * waits in a list before it is removed.
 *
 * <p>{@code op} is written once (to null, by the completing thread under the operation's lock) and
 * read without synchronisation by threads walking a list. The race is benign: a reader that still
 * sees the operation finds it completed and skips it; a reader that sees null knows it completed.
 * Thread-safe in that sense; {@code sibling} is final.
 */
class Watch {

    @Nullable OperationState op;
    final @Nullable Watch sibling;

    Watch(OperationState op, @Nullable Watch sibling) {
        this.op = op;
        this.sibling = sibling;
    }

    /**
     * Turns this watch into a tombstone; the caller holds the operation's lock.
     *
     * @return how many tombstones this adds to its purgatory's purge count: 1, since the watch stays
     *     in its list until a walk or a purge removes it
     */
    int release() {
        op = null;
        return 1;
    }
}
