package io.purgatory.timer;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Timer} on a hierarchical timing wheel, with its own reaper thread.
 *
 * <p>The wheel ({@link TimingWheel}) belongs to the reaper thread alone. Other threads hand work
 * over through two lock-free stacks linked through the tasks themselves: {@link #add} pushes the
 * task on {@code added}; a {@link TimerTask#cancel()} that wins against a task already in the wheel
 * pushes it on {@code cancelled}, and the reaper unlinks it in O(1). A push onto an empty stack
 * unparks the reaper, so hand-offs are taken at once and a cancelled task (with whatever it
 * references) does not stay reachable until its bucket comes round.
 *
 * <p>The reaper loop: take the cancellations, take the adds, move the wheel to the current tick
 * (expired tasks go to the executor in due order), then park until the earliest non-empty bucket
 * is due, or indefinitely when the wheel is empty. It never wakes every tick while idle.
 *
 * <p>Time is {@link System#nanoTime()} measured from construction, so wall-clock jumps cannot
 * fire or stall tasks, and no comparison crosses the sign of {@code nanoTime}. A task's due tick is
 * its deadline rounded <em>up</em> to a tick boundary: a task never runs before its delay has
 * passed, and runs at most about one tick (plus scheduling latency) after it.
 *
 * <p>Expired tasks run on one executor thread, in due-tick order, never on the thread that called
 * {@link #add}. An exception thrown by a task is logged and does not stop the timer. Thread names
 * are {@code <name>-reaper} and {@code <name>-executor}; both threads are daemons.
 *
 * <p>Thread-safe. Fields: {@code wheel}, and the link fields of every task in it, are confined to
 * the reaper thread; {@code added}, {@code cancelled}, {@code size} and {@code closed} are atomics
 * shared by all threads.
 */
public final class SystemTimer implements Timer, TaskHost {

    private static final Logger LOG = LoggerFactory.getLogger(SystemTimer.class);
    private static final long NANOS_PER_MS = 1_000_000L;

    private final String name;
    private final long tickNanos;
    private final long startNanos;
    private final TimingWheel wheel;
    private final AtomicReference<TimerTask> added = new AtomicReference<>();
    private final AtomicReference<TimerTask> cancelled = new AtomicReference<>();
    private final LongAdder size = new LongAdder();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Consumer<TimerTask> expire = this::expire;
    private final ExecutorService executor;
    private final Thread reaper;

    /** A timer with Kafka's defaults: a 1 ms tick and 20 buckets per level. */
    public SystemTimer(String name) {
        this(name, 1, 20);
    }

    /**
     * @param name names the timer's threads
     * @param tickMs the width of a level-0 bucket, at least 1 ms: the timer's resolution
     * @param wheelSize buckets per level, at least 2; a power of two makes bucket lookup a mask
     */
    public SystemTimer(String name, long tickMs, int wheelSize) {
        this.name = Objects.requireNonNull(name, "name");
        if (tickMs < 1 || tickMs > Long.MAX_VALUE / NANOS_PER_MS) {
            throw new IllegalArgumentException("tickMs must be at least 1: " + tickMs);
        }
        this.tickNanos = tickMs * NANOS_PER_MS;
        this.startNanos = System.nanoTime();
        this.wheel = new TimingWheel(wheelSize, 0);
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> daemon(r, name + "-executor"));
        this.reaper = daemon(this::reap, name + "-reaper");
        reaper.start();
    }

    @Override
    public void add(TimerTask task) {
        if (!task.claim(this)) {
            return; // cancelled before it was added
        }
        if (closed.get()) {
            task.transition(TimerTask.QUEUED, TimerTask.CANCELLED);
            throw new IllegalStateException("timer " + name + " is closed");
        }
        long deadlineNanos = saturatedAdd(elapsedNanos(), saturatedMultiply(task.delayMs(), NANOS_PER_MS));
        task.dueTick = ceilDiv(deadlineNanos, tickNanos);
        size.increment();
        push(added, task);
    }

    @Override
    public int size() {
        if (closed.get()) {
            return 0; // what was pending will never run
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, size.sum()));
    }

    @Override
    public long nowMs() {
        return elapsedNanos() / NANOS_PER_MS;
    }

    /** Stops the reaper and the executor; tasks not yet due are never run. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LockSupport.unpark(reaper);
        try {
            reaper.join(); // the reaper runs no user code, so this wait is short
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdown(); // tasks already expired still run; the executor thread then ends
    }

    @Override
    public String toString() {
        return "SystemTimer[" + name + ", tick " + tickNanos / NANOS_PER_MS + " ms, " + size() + " tasks]";
    }

    @Override
    public void cancelled(TimerTask task, int previousState) {
        size.decrement();
        if (previousState == TimerTask.SCHEDULED) {
            push(cancelled, task);
        }
        // a QUEUED task is still on the add stack: the reaper drops it when it takes the stack
    }

    private void push(AtomicReference<TimerTask> stack, TimerTask task) {
        TimerTask head;
        do {
            head = stack.get();
            task.handoffNext = head;
        } while (!stack.compareAndSet(head, task));
        if (head == null) {
            LockSupport.unpark(reaper);
        }
    }

    private void reap() {
        while (!closed.get()) {
            long nowTick = elapsedNanos() / tickNanos;
            takeCancellations();
            takeAdds();
            wheel.advance(nowTick, expire);
            if (added.get() != null || cancelled.get() != null) {
                continue;
            }
            long next = wheel.nextDueTick();
            if (next == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                long wait = saturatedMultiply(next, tickNanos) - elapsedNanos();
                if (wait > 0) {
                    LockSupport.parkNanos(this, wait);
                }
            }
        }
    }

    private void takeCancellations() {
        TimerTask task = cancelled.getAndSet(null);
        while (task != null) {
            TimerTask next = task.handoffNext;
            task.handoffNext = null;
            if (task.list != null) {
                wheel.remove(task);
            }
            task = next;
        }
    }

    private void takeAdds() {
        // the stack is last-in first-out: reverse it so that tasks sharing a bucket run in add order
        TimerTask reversed = null;
        TimerTask task = added.getAndSet(null);
        while (task != null) {
            TimerTask next = task.handoffNext;
            task.handoffNext = reversed;
            reversed = task;
            task = next;
        }
        while (reversed != null) {
            TimerTask next = reversed.handoffNext;
            reversed.handoffNext = null; // before the task becomes SCHEDULED: a canceller may then reuse it
            if (reversed.transition(TimerTask.QUEUED, TimerTask.SCHEDULED) && !wheel.add(reversed)) {
                expire(reversed);
            }
            reversed = next;
        }
    }

    private void expire(TimerTask task) {
        if (task.transition(TimerTask.SCHEDULED, TimerTask.EXPIRED)) {
            size.decrement();
            executor.execute(() -> runTask(task));
        }
    }

    private void runTask(TimerTask task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.error("Timer {}: task {} threw", name, task, t);
        }
    }

    private long elapsedNanos() {
        return System.nanoTime() - startNanos;
    }

    private static Thread daemon(Runnable body, String threadName) {
        Thread thread = new Thread(body, threadName);
        thread.setDaemon(true);
        return thread;
    }

    private static long ceilDiv(long x, long y) {
        return -Math.floorDiv(-x, y);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    private static long saturatedMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
    }
}
