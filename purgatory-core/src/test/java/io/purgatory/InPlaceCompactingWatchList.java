package io.purgatory;

import java.util.Arrays;

/**
 * A deliberately broken copy of the keys part of {@link WatchList}, for {@link WatchListLincheckTest}:
 * {@link #removeTombstones} compacts the array in place instead of copying it. Walkers read a
 * snapshot of the array with no lock held; in place, a live entry shifted left under a walker is
 * skipped by it, and its operation is never tried. Everything else is as in the original.
 *
 * <p>Thread-safe as the original claims to be, except for that.
 */
final class InPlaceCompactingWatchList implements WatchListLincheckTest.Watchers {

    private Object[] entries = new Object[0];
    private int size;

    @Override
    public synchronized void add(OperationState op) {
        op.firstSlot = size;
        if (size == entries.length) {
            entries = Arrays.copyOf(entries, Math.max(4, size * 2));
        }
        entries[size++] = op;
    }

    @Override
    public synchronized void clear(OperationState op) {
        int slot = op.firstSlot;
        if (slot < size && entries[slot] == op) {
            entries[slot] = null;
        }
    }

    @Override
    public void tryCompleteWatched() {
        Object[] snapshot;
        int n;
        synchronized (this) {
            snapshot = entries;
            n = size;
        }
        Attempts attempts = new Attempts();
        int dead = 0;
        for (int i = 0; i < n; i++) {
            OperationState op = WatchList.operationOf(snapshot[i]);
            if (op == null || attempts.retry(op) || op.isDone()) {
                dead++;
            }
        }
        if (dead > 0 && dead * 4 >= n) {
            removeTombstones();
        }
        attempts.result();
    }

    @Override
    public synchronized void removeTombstones() {
        int live = 0;
        for (int i = 0; i < size; i++) {
            Object entry = entries[i];
            if (WatchList.operationOf(entry) != null) {
                ((OperationState) entry).firstSlot = live;
                entries[live++] = entry; // the bug: the array a walker may hold changes under it
            }
        }
        Arrays.fill(entries, live, size, null);
        size = live;
    }

    @Override
    public synchronized Object[] detach() {
        Object[] all = Arrays.copyOf(entries, size);
        entries = new Object[0];
        size = 0;
        return all;
    }
}
