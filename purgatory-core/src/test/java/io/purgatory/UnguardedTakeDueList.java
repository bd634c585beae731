package io.purgatory;

import io.purgatory.internal.OperationState;
import java.util.Arrays;

/**
 * A deliberately broken copy of the position part of {@link WatchList}, for
 * {@link PositionIndexLincheckTest}: {@link #takeDue} walks the {@link PositionIndex} without the
 * monitor that every other method takes, so a completion that buries a watch and compacts the index
 * meanwhile moves entries under the walk. Everything else is as in the original.
 *
 * <p>Thread-safe as the original claims to be, except for that.
 */
final class UnguardedTakeDueList implements PositionIndexLincheckTest.Positions {

    private final PositionIndex index = new PositionIndex();

    @Override
    public synchronized void add(PositionWatch watch, long position) {
        watch.indexed = true;
        index.add(position, watch);
    }

    @Override
    public OperationState[] takeDue(long position) { // the bug: not synchronized
        OperationState[] due = new OperationState[8];
        int n = 0;
        for (PositionWatch watch; (watch = index.pollDue(position)) != null; ) {
            OperationState op = watch.op;
            if (op == null) {
                continue;
            }
            watch.indexed = false;
            due[n++] = op;
        }
        index.removeDeadIfHalf();
        return Arrays.copyOf(due, n);
    }

    @Override
    public synchronized void release(PositionWatch watch) {
        watch.op = null;
        if (watch.indexed) {
            index.buried();
            index.removeDeadIfHalf();
        }
    }
}
