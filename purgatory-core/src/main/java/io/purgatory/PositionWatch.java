package io.purgatory;

import io.purgatory.internal.OperationState;
import org.jspecify.annotations.Nullable;

/**
 * A watch that waits for its key's position to reach a threshold. It starts in its list's
 * {@link PositionIndex} ({@code indexed}), where {@link DelayedOperationPurgatory#advance} finds it by
 * position; an advance that reaches it moves it into the list's plain entries, where it stays as a
 * keys-only watch ({@code checkAndComplete} still tries it, later advances do not).
 *
 * <p>Unlike a plain {@link Watch}, its {@code op} is cleared under the list's monitor, so that the
 * index always knows how many of its entries are tombstones and can compact itself: after every burial
 * and every advance an index holds fewer tombstones than live watches (or none), and none holds an
 * operation that has completed.
 *
 * <p>Thread-safe: {@code list} is written once, under the operation's lock, before the operation is
 * published, and read under that lock; {@code indexed} and {@code op}'s clearing are guarded by
 * {@code list}'s monitor (reads of {@code op} by list walkers are benign races, as for every watch).
 */
final class PositionWatch extends Watch {

    /** The list this watch is linked into. */
    @Nullable WatchList list;
    /** True while the watch is in {@code list}'s position index. Guarded by {@code list}'s monitor. */
    boolean indexed;

    PositionWatch(OperationState op, @Nullable Watch sibling) {
        super(op, sibling);
    }

    @Override
    int release() {
        assert list != null; // set when the watch was linked, before its operation's lock was released
        return list.release(this);
    }
}
