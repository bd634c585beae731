package io.purgatory.timer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A timer's count of pending tasks that the threads changing it change without an atomic
 * instruction: each thread counts into a cell of its own (a plain read and a release write, no
 * {@code lock}-prefixed instruction, no store-buffer drain), and {@link #sum()} adds the cells up. A
 * task may be counted in on one thread and out on another: only the sum means anything.
 *
 * <p>{@link #sum()} is what {@link java.util.concurrent.atomic.LongAdder#sum()} is: exact when no
 * thread changes the count meanwhile, and it includes every change that happens-before the call (so a
 * thread always sees its own adds and cancels); under concurrent changes it is not an atomic snapshot.
 *
 * <p>Cost: one {@link ThreadLocal} lookup per change, instead of a compare-and-set on a shared
 * counter; one cell per thread that ever changed this count (136 bytes: padded to its own cache lines,
 * so that two threads' counting never shares a line), found through the thread's own map. A cell
 * of a thread that has ended is folded into {@code retired} when the next thread registers, so
 * threads that come and go leave no cells behind. A timer dropped while its threads live on leaves
 * each of them a stale map entry (the key is weak), which the thread's later lookups expunge: the
 * usual {@code ThreadLocal} contract.
 *
 * <p>Thread-safe. A cell's {@code value} is written by its owner thread only, read by any thread
 * with acquire; {@code cells} and {@code retired} are guarded by this object's monitor.
 */
final class PendingCount {

    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(CellValue.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ThreadLocal<Cell> mine = ThreadLocal.withInitial(this::register);
    @GuardedBy("this")
    private Cell[] cells = new Cell[0];
    /** What the cells of ended threads had counted. */
    @GuardedBy("this")
    private long retired;

    /** One more pending task, counted by the calling thread. */
    void increment() {
        mine.get().add(1);
    }

    /** One pending task less, counted by the calling thread. */
    void decrement() {
        mine.get().add(-1);
    }

    /** The count: every thread's cell, and what ended threads counted. */
    synchronized long sum() {
        long sum = retired;
        for (Cell cell : cells) {
            sum += (long) VALUE.getAcquire(cell);
        }
        return sum;
    }

    /** The calling thread's first change: a cell of its own; cells of ended threads are folded meanwhile. */
    private synchronized Cell register() {
        int live = 0;
        for (Cell cell : cells) {
            if (cell.owner.isAlive()) { // an ended thread's last write happens-before isAlive() returns false
                cells[live++] = cell;
            } else {
                retired += (long) VALUE.getAcquire(cell);
            }
        }
        Cell cell = new Cell(Thread.currentThread());
        cells = Arrays.copyOf(cells, live + 1);
        cells[live] = cell;
        return cell;
    }

    /** Padding before a cell's value: no other object's field shares its cache line. */
    abstract static class CellPadBefore {
        long p01;
        long p02;
        long p03;
        long p04;
        long p05;
        long p06;
        long p07;
    }

    /** A cell's value, between its paddings (a subclass's fields are laid out after its superclass's). */
    abstract static class CellValue extends CellPadBefore {
        long value;
    }

    /** Padding after a cell's value. */
    abstract static class CellPadAfter extends CellValue {
        long p11;
        long p12;
        long p13;
        long p14;
        long p15;
        long p16;
        long p17;
    }

    /** One thread's count. Written by {@code owner} only. */
    private static final class Cell extends CellPadAfter {
        final Thread owner;

        Cell(Thread owner) {
            this.owner = owner;
        }

        void add(long delta) {
            VALUE.setRelease(this, value + delta); // the owner's own plain read, then a write others read with acquire
        }
    }
}
