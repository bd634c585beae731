package io.purgatory.benchmarks.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The floor under any add + cancel that never fires a task early and hands the task to another
 * thread: what {@code TimerAddCancelBenchmark.oneThread} costs at the least on this machine, whatever
 * the timer. Such a timer must read the clock on the caller (a deadline computed later, from a
 * clock read by the timer's thread, could only be later than the caller's, so the task would run
 * late by the hand-off; one computed from an older reading would run early), allocate or reuse a
 * handle, and make the add and the cancel atomic against each other and against the timer's thread.
 *
 * <ul>
 *   <li>{@code clock}: {@link System#nanoTime()} alone.</li>
 *   <li>{@code clockAllocateTwoAtomics}: a clock read, a fresh 40-byte handle and two uncontended
 *       compare-and-sets on it (claimed by the add, taken by the cancel): a timer whose hand-off to
 *       its thread costs no atomic instruction.</li>
 *   <li>{@code clockAllocateThreeAtomics}: the same plus one compare-and-set on a field shared by
 *       every add (a hand-off stack's head), uncontended here: purgatory-core's {@code SystemTimer}
 *       makes these three.</li>
 * </ul>
 * Netty's {@code HashedWheelTimer} makes four on the caller (its pending count, its add queue, the
 * handle's state, its cancel queue) and a fifth on its worker, with the clock read and the allocation.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar AddCancelFloorBenchmark}. Each benchmark
 * thread has its own state.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class AddCancelFloorBenchmark {

    private static final VarHandle STATE;
    private static final VarHandle HEAD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(Handle.class, "state", int.class);
            HEAD = lookup.findVarHandle(Caller.class, "head", Handle.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Benchmark
    public long clock() {
        return System.nanoTime();
    }

    @Benchmark
    public Handle clockAllocateTwoAtomics() {
        Handle handle = new Handle(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        STATE.compareAndSet(handle, 0, 1); // the add claims it
        STATE.compareAndSet(handle, 1, 2); // the cancel takes it
        return handle;
    }

    @Benchmark
    public Handle clockAllocateThreeAtomics(Caller caller) {
        Handle handle = new Handle(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        STATE.compareAndSet(handle, 0, 1); // the add claims it
        Handle previous = caller.head;
        HEAD.compareAndSet(caller, previous, handle); // and publishes it (not linked: nothing consumes it here)
        STATE.compareAndSet(handle, 1, 2); // the cancel takes it
        return handle;
    }

    /** A timer's handle: a deadline, a state, links. 40 bytes with compressed references. */
    public static class Handle {
        final long deadlineNanos;
        volatile int state;
        Handle next;
        Handle prev;
        Object task;

        Handle(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }
    }

    /** The shared field one thread's adds publish to. Confined to its thread. */
    @State(Scope.Thread)
    public static class Caller {
        volatile Handle head;
    }
}
