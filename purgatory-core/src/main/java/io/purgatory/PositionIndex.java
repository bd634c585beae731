package io.purgatory;

import io.purgatory.internal.OperationState;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The position watches of one key, by the position each waits for, lowest first.
 *
 * <p>Two parts. The <em>run</em> is a ring buffer of watches in ascending position: a watch whose
 * position is at or above the run's last joins the run's tail in O(1), which is the common case
 * (positions are offsets of appends, arriving in order). Any other watch goes to the <em>heap</em>,
 * a binary min-heap, in O(log n). The lowest position is the lower of the run's head and the heap's
 * top, so {@link #pollDue} takes it in O(1) from the run and in O(log n) from the heap. Positions
 * are kept in {@code long} arrays beside the watches, so that comparisons read no watch.
 *
 * <p>Invariants: the run ascends from {@code runHead}; the heap is a min-heap on position;
 * {@code dead} is the number of entries whose operation is null (tombstones). Its owner calls
 * {@link #removeDeadIfHalf} after each change that may raise the share of tombstones (a burial, or
 * polls that took live watches out), so between calls an index holds fewer tombstones than live
 * watches, or none. Arrays shrink when a quarter full, so memory follows the watches.
 *
 * <p>Not thread-safe: its {@link WatchList}'s monitor guards every field, and also the clearing of
 * its watches' {@code op} (see {@link PositionWatch}), which is what keeps {@code dead} exact.
 */
final class PositionIndex {

    /** The smallest array length; lengths are powers of two so that ring indices are masked. */
    private static final int MIN_CAPACITY = 8;

    private long[] runPositions = new long[MIN_CAPACITY];
    private PositionWatch[] runWatches = new PositionWatch[MIN_CAPACITY];
    private int runHead;
    private int runSize;

    private long[] heapPositions = new long[MIN_CAPACITY];
    private PositionWatch[] heapWatches = new PositionWatch[MIN_CAPACITY];
    private int heapSize;

    private int dead;

    int size() {
        return runSize + heapSize;
    }

    boolean isEmpty() {
        return runSize == 0 && heapSize == 0;
    }

    /** Adds a live watch waiting for {@code position}: O(1) at or above the run's tail, else O(log n). */
    void add(long position, PositionWatch watch) {
        if (runSize == 0 || position >= runPositions[(runHead + runSize - 1) & (runPositions.length - 1)]) {
            if (runSize == runPositions.length) {
                resizeRun(runPositions.length * 2);
            }
            int tail = (runHead + runSize) & (runPositions.length - 1);
            runPositions[tail] = position;
            runWatches[tail] = watch;
            runSize++;
        } else {
            if (heapSize == heapPositions.length) {
                heapPositions = Arrays.copyOf(heapPositions, heapSize * 2);
                heapWatches = Arrays.copyOf(heapWatches, heapSize * 2);
            }
            siftUp(heapSize++, position, watch);
        }
    }

    /** True if the lowest position waited for is at or below {@code position}. O(1). */
    boolean hasDue(long position) {
        return (runSize > 0 && runPositions[runHead] <= position)
                || (heapSize > 0 && heapPositions[0] <= position);
    }

    /**
     * Removes and returns the watch with the lowest position if that position is at or below
     * {@code position}, a tombstone or not; null if there is none.
     */
    @Nullable PositionWatch pollDue(long position) {
        boolean fromRun = runSize > 0 && runPositions[runHead] <= position
                && (heapSize == 0 || runPositions[runHead] <= heapPositions[0]);
        PositionWatch watch;
        if (fromRun) {
            watch = runWatches[runHead];
            runWatches[runHead] = null;
            runHead = (runHead + 1) & (runPositions.length - 1);
            runSize--;
        } else if (heapSize > 0 && heapPositions[0] <= position) {
            watch = heapWatches[0];
            heapSize--;
            long lastPosition = heapPositions[heapSize];
            PositionWatch last = heapWatches[heapSize];
            heapWatches[heapSize] = null;
            if (heapSize > 0) {
                siftDown(0, lastPosition, last);
            }
        } else {
            return null;
        }
        shrinkIfSparse();
        if (watch.op == null) {
            dead--;
        }
        return watch;
    }

    /** One of the watches here became a tombstone (its owner then calls {@link #removeDeadIfHalf}). */
    void buried() {
        dead++;
    }

    /**
     * Removes every tombstone if they are half of the index or more, in O(n): amortised O(1) per
     * tombstone, since at least n/2 go. Afterwards the index holds fewer tombstones than live
     * watches, or none.
     *
     * @return how many tombstones were removed
     */
    int removeDeadIfHalf() {
        return dead > 0 && dead * 2 >= size() ? removeDead() : 0;
    }

    /** Removes every tombstone, in O(n); returns how many. */
    int removeDead() {
        int removed = dead;
        if (removed == 0) {
            return 0;
        }
        int kept = 0;
        int mask = runPositions.length - 1;
        for (int i = 0; i < runSize; i++) {
            int from = (runHead + i) & mask;
            PositionWatch watch = runWatches[from];
            runWatches[from] = null;
            if (watch.op != null) {
                int to = (runHead + kept++) & mask; // never ahead of from: the run keeps its order
                runPositions[to] = runPositions[from];
                runWatches[to] = watch;
            }
        }
        runSize = kept;
        kept = 0;
        for (int i = 0; i < heapSize; i++) {
            PositionWatch watch = heapWatches[i];
            heapWatches[i] = null;
            if (watch.op != null) {
                heapPositions[kept] = heapPositions[i];
                heapWatches[kept++] = watch;
            }
        }
        heapSize = kept;
        for (int i = (heapSize >>> 1) - 1; i >= 0; i--) {
            siftDown(i, heapPositions[i], heapWatches[i]);
        }
        dead = 0;
        shrinkIfSparse();
        return removed;
    }

    /** The operations of the live watches, in no particular order. */
    OperationState[] liveOperations() {
        OperationState[] ops = new OperationState[size() - dead];
        int n = 0;
        for (int i = 0; i < runSize; i++) {
            OperationState op = runWatches[(runHead + i) & (runPositions.length - 1)].op;
            if (op != null) {
                ops[n++] = op;
            }
        }
        for (int i = 0; i < heapSize; i++) {
            OperationState op = heapWatches[i].op;
            if (op != null) {
                ops[n++] = op;
            }
        }
        return ops;
    }

    /**
     * Empties the index: copies its live watches into {@code into} from {@code offset} and marks them
     * not indexed (the caller's array has room for {@code size() - deadCount()} of them).
     *
     * @return how many tombstones were dropped
     */
    int drainLive(Object[] into, int offset) {
        int n = offset;
        for (int i = 0; i < runSize; i++) {
            n = drainOne(runWatches[(runHead + i) & (runPositions.length - 1)], into, n);
        }
        for (int i = 0; i < heapSize; i++) {
            n = drainOne(heapWatches[i], into, n);
        }
        int dropped = dead;
        runPositions = new long[MIN_CAPACITY];
        runWatches = new PositionWatch[MIN_CAPACITY];
        heapPositions = new long[MIN_CAPACITY];
        heapWatches = new PositionWatch[MIN_CAPACITY];
        runHead = 0;
        runSize = 0;
        heapSize = 0;
        dead = 0;
        return dropped;
    }

    int deadCount() {
        return dead;
    }

    // Visible for testing
    int heapSize() {
        return heapSize;
    }

    /** The slots the run and the heap have room for: what the arrays cost. Visible for testing. */
    int capacity() {
        return runPositions.length + heapPositions.length;
    }

    private static int drainOne(PositionWatch watch, Object[] into, int n) {
        if (watch.op == null) {
            return n;
        }
        watch.indexed = false;
        into[n] = watch;
        return n + 1;
    }

    /** Halves an array that is less than a quarter full (down to {@link #MIN_CAPACITY}). */
    private void shrinkIfSparse() {
        while (runSize * 4 < runPositions.length && runPositions.length > MIN_CAPACITY) {
            resizeRun(runPositions.length / 2);
        }
        while (heapSize * 4 < heapPositions.length && heapPositions.length > MIN_CAPACITY) {
            heapPositions = Arrays.copyOf(heapPositions, heapPositions.length / 2);
            heapWatches = Arrays.copyOf(heapWatches, heapWatches.length / 2);
        }
    }

    private void resizeRun(int capacity) {
        long[] positions = new long[capacity];
        PositionWatch[] watches = new PositionWatch[capacity];
        int mask = runPositions.length - 1;
        for (int i = 0; i < runSize; i++) {
            positions[i] = runPositions[(runHead + i) & mask];
            watches[i] = runWatches[(runHead + i) & mask];
        }
        runPositions = positions;
        runWatches = watches;
        runHead = 0;
    }

    private void siftUp(int slot, long position, PositionWatch watch) {
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            if (heapPositions[parent] <= position) {
                break;
            }
            heapPositions[slot] = heapPositions[parent];
            heapWatches[slot] = heapWatches[parent];
            slot = parent;
        }
        heapPositions[slot] = position;
        heapWatches[slot] = watch;
    }

    private void siftDown(int slot, long position, PositionWatch watch) {
        int half = heapSize >>> 1;
        while (slot < half) {
            int child = 2 * slot + 1;
            if (child + 1 < heapSize && heapPositions[child + 1] < heapPositions[child]) {
                child++;
            }
            if (position <= heapPositions[child]) {
                break;
            }
            heapPositions[slot] = heapPositions[child];
            heapWatches[slot] = heapWatches[child];
            slot = child;
        }
        heapPositions[slot] = position;
        heapWatches[slot] = watch;
    }
}
