package io.purgatory;

import io.purgatory.internal.OperationState;

/**
 * A list in which an operation is its own entry (its first key's), as the operation sees it: the
 * room below the watch lists owns this type, so that {@link Operations} clears its entry
 * through it and never names {@link WatchList} (which extends it).
 *
 * <p>Thread-safety: that of the list.
 */
abstract class OperationList {

    /** Turns {@code op}'s entry into a tombstone, at the slot the operation keeps; under the operation's lock. */
    abstract void clear(OperationState op);
}
