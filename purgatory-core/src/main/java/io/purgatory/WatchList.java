package io.purgatory;

import io.purgatory.internal.OperationState;
import org.jspecify.annotations.Nullable;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The watches of one key: an array list of entries, appended under its monitor and read without it.
 *
 * <p>An entry is the operation itself for the first key it watches, so an operation watching one
 * key (the common case) costs this list one slot and no node; for its other keys it is a
 * {@link Watch}. A direct entry knows its slot ({@code firstSlot}), so completion turns it into a
 * tombstone in O(1) by setting the slot to null ({@link #clear}); a {@link Watch} becomes a tombstone
 * when its {@code op} is cleared. Either way the completed operation is unreachable from this list
 * at once.
 *
 * <p>Readers take the array and the size under the monitor and then walk that snapshot with no lock
 * held, calling operations' {@code tryComplete}. This is safe because an array, once part of a
 * snapshot, changes below the snapshot's size in one way only: a direct entry may become null, which
 * a reader takes for a tombstone, as it does the completed operation it may still see. Appends write
 * past the old size (or into a new, larger array) and removal of tombstones is copy-on-write. A reader
 * therefore sees every watch that was linked before it took its snapshot, which is what
 * {@code checkAndComplete} promises.
 *
 * <p>Position watches ({@link PositionWatch}) wait in the list's {@link PositionIndex} instead,
 * ordered by position, so that {@link #takeDue} finds the ones an advance reaches without walking the
 * others. A watch taken from the index joins the entries, where it is a keys-only watch from then on.
 * {@link #tryCompleteWatched} tries both the entries and the index: a change that is not an advance
 * concerns every watcher of the key.
 *
 * <p>A list removed from its purgatory's map is first marked {@code detached} under the monitor,
 * after which {@link #tryAdd} refuses new watches; the caller then makes a fresh list.
 *
 * <p>Thread-safe. The monitor guards ({@code @GuardedBy("this")}, checked by Error Prone)
 * {@code size}, {@code index}, {@code detached}, the writing of {@code entries} and of the
 * {@code firstSlot} of every operation whose first key this is, and the {@code indexed} flag and
 * the clearing of every {@link PositionWatch} linked here. {@link #clear} runs without the monitor
 * unless an array copy races it (see there); {@code entries} and {@code copying} are volatile for
 * it. Lock order: an operation's lock, then a map bin's lock, then this monitor; user code never
 * runs under this monitor.
 */
final class WatchList extends OperationList {

    private static final Object[] NONE = {};
    /** The fewest slots an array of entries gets. */
    private static final int MIN_CAPACITY = 4;
    private static final OperationState[] NO_OPERATIONS = {};

    private final WatchCounts counts;
    /**
     * Always true but in a model check (a test seam): false makes {@link #dropTombstones} compact the
     * array in place, the bug WatchListLincheckTest must catch (a walker holding the array then skips
     * an entry shifted under it). Costs no memory (the object's padding) and one read per compaction.
     * Kept here because the bug is one line inside the compaction, which no test class can swap
     * without copying the method it must check.
     */
    private final boolean copyOnCompact;
    /** The array of entries; a new one is published (volatile) after the direct entries' slots in it are written. */
    private volatile Object[] entries = NONE;
    /**
     * True while a thread holding the monitor copies {@code entries} into a new array (to grow it,
     * compact it or detach it): a {@link #clear} that sees it clears again under the monitor.
     */
    private volatile boolean copying;
    @GuardedBy("this")
    private int size;
    /** The position watches not yet reached by an advance; null until the first one. */
    @GuardedBy("this")
    private @Nullable PositionIndex index;
    @GuardedBy("this")
    private boolean detached;

    WatchList(WatchCounts counts) {
        this(counts, true);
    }

    /** For the model check only: see {@code copyOnCompact}. */
    WatchList(WatchCounts counts, boolean copyOnCompact) {
        this.counts = counts;
        this.copyOnCompact = copyOnCompact;
    }

    /** The operation an entry stands for, or null for a tombstone. */
    static @Nullable OperationState operationOf(Object entry) {
        return entry instanceof Watch watch ? watch.op : (OperationState) entry;
    }

    /**
     * Links an entry unless the list was detached: an operation (this is its first key; the caller
     * holds its lock), a {@link Watch}, or a {@link PositionWatch}, which goes into the position
     * index at {@code position} (ignored for the others). The caller counts it in
     * {@link WatchCounts#linked}, once for all the keys of its operation.
     *
     * @return true if linked
     */
    synchronized boolean tryAdd(Object entry, long position) {
        if (detached) {
            return false;
        }
        if (entry instanceof PositionWatch watch) {
            watch.list = this;
            watch.indexed = true;
            if (index == null) {
                index = new PositionIndex();
            }
            index.add(position, watch);
        } else {
            if (entry instanceof OperationState op) {
                Operations.enteredFirst(op, this, size);
            }
            append(entry);
        }
        return true;
    }

    /**
     * Takes out of the index every position watch waiting at or below {@code position}, lowest
     * first, and moves the live ones into the entries (keys-only from now on). O(1) when none is
     * due; O(1) per watch taken from the index's ordered run, O(log n) from its heap. Taking live
     * watches out may leave tombstones half of the index or more: it then compacts, as after a
     * burial, so the index holds fewer tombstones than live watches, or none.
     *
     * @return the operations of the live watches taken, lowest position first
     */
    synchronized OperationState[] takeDue(long position) {
        if (index == null || !index.hasDue(position)) {
            return NO_OPERATIONS;
        }
        OperationState[] due = new OperationState[Math.min(index.size(), 8)];
        int n = 0;
        for (PositionWatch watch; (watch = index.pollDue(position)) != null; ) {
            OperationState op = watch.op;
            if (op == null) {
                counts.linked.decrement(); // a tombstone of the index: never counted for purges
                continue;
            }
            watch.indexed = false;
            append(watch);
            if (n == due.length) {
                due = Arrays.copyOf(due, n * 2);
            }
            due[n++] = op;
        }
        counts.linked.add(-index.removeDeadIfHalf());
        return n == due.length ? due : Arrays.copyOf(due, n);
    }

    /**
     * Turns a position watch linked here into a tombstone; the caller holds its operation's lock. A
     * tombstone in the index is the index's to remove, which it does once tombstones are half of it
     * (so that it holds fewer tombstones than live watches, or none).
     *
     * @return 1 if the watch was among the entries (a tombstone for purges to count), else 0
     */
    synchronized int release(PositionWatch watch) {
        watch.op = null;
        if (!watch.indexed) {
            return 1;
        }
        assert index != null; // an indexed watch is in it
        index.buried();
        counts.linked.add(-index.removeDeadIfHalf());
        return 0;
    }

    /**
     * Turns op's direct entry into a tombstone; the caller holds op's lock and this is op's first
     * list. Without the monitor, in the common case: it nulls op's slot in the current array, then,
     * after a full fence, checks that no copy of the array is running and none has replaced it. A
     * copy that starts after the fence reads the slot null: the copier sets {@code copying} (a
     * volatile write) before it reads the array, and of two threads that each write and then read
     * the other's variable, one sees the other's write. If a copy did race it, the entry may have
     * been copied live: it clears it again under the monitor, in the array the copy made.
     */
    @Override
    void clear(OperationState op) {
        Object[] current = entries;
        int slot = Operations.firstSlot(op); // written before the array it indexes was published
        if (slot < current.length && current[slot] == op) {
            current[slot] = null;
        }
        VarHandle.fullFence();
        if (copying || entries != current) {
            clearCopied(op);
        }
    }

    /** {@link #clear} under the monitor, where no copy runs. */
    private synchronized void clearCopied(OperationState op) {
        Object[] current = entries;
        int slot = Operations.firstSlot(op);
        if (slot < size && current[slot] == op) {
            current[slot] = null;
        }
    }

    /**
     * Retries every operation linked before this call; removes tombstones when they make up a
     * quarter of the list or more, so a list that is checked often stays short without a purge (a
     * tombstone costs every later walk a cache miss; the copy costs one pass over the array). Every
     * operation is tried even if some {@code tryComplete} throws; the first exception is rethrown
     * after (see {@link Attempts}).
     *
     * @return how many operations this call completed
     */
    int tryCompleteWatched() {
        Object[] snapshot;
        int n;
        OperationState[] indexed;
        synchronized (this) {
            snapshot = entries;
            n = size;
            indexed = index == null || index.isEmpty() ? NO_OPERATIONS : index.liveOperations();
        }
        Attempts attempts = new Attempts();
        for (OperationState op : indexed) {
            attempts.retry(op);
        }
        int dead = 0;
        for (int i = 0; i < n; i++) {
            OperationState op = operationOf(snapshot[i]);
            if (op == null || attempts.retry(op) || Operations.isDone(op)) {
                dead++;
            }
        }
        if (dead > 0 && dead * 4 >= n) {
            removeTombstones();
        }
        return attempts.result();
    }

    /**
     * Unlinks every tombstone (copy-on-write), keeping direct entries' slots current; returns how
     * many. The copy keeps room to grow by half (at least {@value #MIN_CAPACITY} slots), so that a
     * short list that is compacted and then appended to does not copy its array twice.
     */
    synchronized int removeTombstones() {
        int removed = dropTombstones();
        counts.unlinked(removed);
        return removed;
    }

    /**
     * {@link #removeTombstones} without reporting to the counts: a purge reports the sum over every
     * list once, rather than two contended atomic updates per list.
     */
    synchronized int dropTombstones() {
        startCopy();
        try {
            return copyLive();
        } finally {
            copying = false;
        }
    }

    /** Marks a copy of the array as running, fenced so that {@link #clear} and the copy see each other. */
    @GuardedBy("this")
    private void startCopy() {
        copying = true;
        VarHandle.fullFence();
    }

    @GuardedBy("this")
    private int copyLive() {
        Object[] from = entries;
        Object[] kept = null;
        int live = 0;
        for (int i = 0; i < size; i++) {
            Object entry = from[i];
            if (operationOf(entry) != null) { // read once: it may turn null under us, never back
                if (kept != null) {
                    kept[live] = entry;
                    if (entry instanceof OperationState op) {
                        Operations.movedFirst(op, live);
                    }
                }
                live++;
            } else if (kept == null) {
                kept = copyOnCompact ? new Object[Math.max(MIN_CAPACITY, size - 1 + (size >> 1))] : from; // in place: the model check's bug
                System.arraycopy(from, 0, kept, 0, live);
            }
        }
        if (kept == null) {
            return 0;
        }
        if (kept == from) {
            Arrays.fill(kept, live, size, null); // in place (the model check's bug): what moved left is gone from the right
        } else if (live < kept.length >> 2 && kept.length > MIN_CAPACITY) {
            kept = Arrays.copyOf(kept, Math.max(MIN_CAPACITY, live + (live >> 1))); // most were dead: let the rest go
        }
        int removed = size - live;
        entries = live == 0 ? NONE : kept;
        size = live;
        return removed;
    }

    /** Marks the list detached if it is empty; true if it did (the caller then unmaps it). */
    synchronized boolean detachIfEmpty() {
        if (isEmpty()) {
            detached = true;
        }
        return detached;
    }

    /**
     * Marks the list detached and takes every entry out of it, with the live watches of its index
     * (see {@link #operationOf}). The caller completes or cancels their operations, then reports them
     * with {@link WatchCounts#unlinked}.
     */
    synchronized Object[] detach() {
        detached = true;
        Object[] all;
        startCopy();
        try {
            if (index == null) {
                all = Arrays.copyOf(entries, size);
            } else {
                all = Arrays.copyOf(entries, size + index.size() - index.deadCount());
                counts.linked.add(-index.drainLive(all, size));
            }
            entries = NONE;
        } finally {
            copying = false;
        }
        size = 0;
        return all;
    }

    synchronized boolean isEmpty() {
        return size == 0 && (index == null || index.isEmpty());
    }

    /**
     * {@link #isEmpty()} without the monitor when the list has no position index: a hint, maybe
     * stale either way, for a caller that then rechecks under the monitor ({@link #detachIfEmpty})
     * or may leave an empty list for a purge to unmap.
     */
    @SuppressWarnings("GuardedBy") // a racy read of an int and a reference, rechecked under the monitor
    boolean looksEmpty() {
        return index == null ? size == 0 : isEmpty();
    }

    @GuardedBy("this")
    private void append(Object entry) {
        Object[] current = entries;
        if (size == current.length) {
            startCopy();
            current = Arrays.copyOf(current, Math.max(MIN_CAPACITY, size * 2));
            entries = current;
            copying = false;
        }
        current[size++] = entry;
    }
}
