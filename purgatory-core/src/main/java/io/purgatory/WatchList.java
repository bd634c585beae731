package io.purgatory;

import java.util.Arrays;

/**
 * The watches of one key: an array list, appended under its monitor and read without it.
 *
 * <p>Readers take the array and the size under the monitor and then walk that snapshot with no lock
 * held, calling operations' {@code tryComplete}. This is safe because an array, once part of a
 * snapshot, is never changed below the snapshot's size: appends write past the old size (or into a
 * new, larger array) and removal of tombstones is copy-on-write. A reader therefore sees every watch
 * that was linked before it took its snapshot, which is what {@code checkAndComplete} promises.
 *
 * <p>A list removed from its purgatory's map is first marked {@code detached} under the monitor,
 * after which {@link #tryAdd} refuses new watches; the caller then makes a fresh list.
 *
 * <p>Thread-safe. The monitor guards {@code watches}, {@code size} and {@code detached}. Lock
 * order: an operation's lock, then a map bin's lock, then this monitor; user code never runs under
 * this monitor.
 */
final class WatchList {

    private static final Watch[] NONE = {};

    private final WatchCounts counts;
    private Watch[] watches = NONE;
    private int size;
    private boolean detached;

    WatchList(WatchCounts counts) {
        this.counts = counts;
    }

    /** Links watch unless the list was detached; true if linked. */
    synchronized boolean tryAdd(Watch watch) {
        if (detached) {
            return false;
        }
        if (size == watches.length) {
            watches = Arrays.copyOf(watches, Math.max(4, size * 2));
        }
        watches[size++] = watch;
        counts.linked.increment();
        return true;
    }

    /**
     * Retries every operation linked before this call; removes tombstones when they make up a
     * quarter of the list or more, so a list that is checked often stays short without a purge (a
     * tombstone costs every later walk a cache miss; the copy costs one pass over the array).
     *
     * @return how many operations this call completed
     */
    int tryCompleteWatched() {
        Watch[] snapshot;
        int n;
        synchronized (this) {
            snapshot = watches;
            n = size;
        }
        int completed = 0;
        int dead = 0;
        for (int i = 0; i < n; i++) {
            DelayedOperation op = snapshot[i].op;
            if (op == null) {
                dead++;
            } else if (op.maybeTryComplete()) {
                completed++;
                dead++;
            } else if (op.isCompleted()) {
                dead++;
            }
        }
        if (dead > 0 && dead * 4 >= n) {
            removeTombstones();
        }
        return completed;
    }

    /** Unlinks every tombstone (copy-on-write); returns how many. */
    synchronized int removeTombstones() {
        Watch[] kept = null;
        int live = 0;
        for (int i = 0; i < size; i++) {
            Watch watch = watches[i];
            if (watch.op != null) { // read once: it may turn null under us, never back
                if (kept != null) {
                    kept[live] = watch;
                }
                live++;
            } else if (kept == null) {
                kept = new Watch[size - 1];
                System.arraycopy(watches, 0, kept, 0, live);
            }
        }
        if (kept == null) {
            return 0;
        }
        int removed = size - live;
        watches = live == 0 ? NONE : kept;
        size = live;
        counts.unlinked(removed);
        return removed;
    }

    /** Marks the list detached if it is empty; true if it did (the caller then unmaps it). */
    synchronized boolean detachIfEmpty() {
        if (size == 0) {
            detached = true;
        }
        return detached;
    }

    /**
     * Marks the list detached and takes every watch out of it. The caller completes or cancels
     * their operations, then reports them with {@link WatchCounts#unlinked}.
     */
    synchronized Watch[] detach() {
        detached = true;
        Watch[] all = Arrays.copyOf(watches, size);
        watches = NONE;
        size = 0;
        return all;
    }

    synchronized boolean isEmpty() {
        return size == 0;
    }
}
