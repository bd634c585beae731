package org.apache.kafka.server.util.timer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.kafka.ModuleInfo;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kafka's {@code SystemTimer} (kafka-server-common 4.4.0) on purgatory-core's timing wheel
 * ({@link io.purgatory.timer.SystemTimer}).
 *
 * <p><b>Kafka's contract, kept.</b> {@link #add} schedules a task to run once on the timer's own
 * executor thread ({@value #SYSTEM_TIMER_THREAD_PREFIX}{@code <name>}), never on the caller's; a task
 * already due runs at once; {@link #size()} counts the tasks scheduled and not yet run or cancelled;
 * {@link #advanceClock(long)} waits up to its timeout for due tasks and says whether any ran, so Kafka's
 * reaper loops ({@code advanceClock(200)}) work unchanged; {@link #close()} stops the timer, and tasks
 * not yet due never run.
 *
 * <p><b>What it improves.</b> A task's first add links the task itself into the wheel (it is a
 * purgatory-core timer node): no {@code TimerTaskEntry} is made, where Kafka makes one per add; only a
 * task added again gets an entry and a node of its own. The wheel runs itself on its own thread, parking until the earliest
 * deadline, so no reaper has to drive it and it never wakes every tick while idle. A task never runs
 * before its delay has passed (deadlines round up to the tick; Kafka's wheel can run a task up to a tick
 * early). A cancelled task is unlinked from the wheel in O(1), within a bounded time, rather than kept
 * until its bucket comes round. Time is {@code System.nanoTime()}: wall-clock jumps neither fire nor
 * stall tasks ({@code startMs} is therefore not used).
 *
 * <p>Thread-safe. {@code lastSeenRuns} is guarded by {@code progress}; {@code runs} is an atomic.
 */
public class SystemTimer implements Timer {

    /** Kafka's prefix of the executor thread's name. */
    public static final String SYSTEM_TIMER_THREAD_PREFIX = "executor-";

    private final io.purgatory.timer.SystemTimer wheel;
    /** Tasks run so far; {@link #advanceClock} reports whether it moved. */
    private final AtomicLong runs = new AtomicLong();
    private final Object progress = new Object();
    @GuardedBy("progress")
    private long lastSeenRuns;
    /** Threads waiting in {@link #advanceClock}: a run notifies only when one is. */
    private volatile int waiting;
    private volatile boolean closed;
    /** The entry that tasks linked as their own nodes on this timer hold; tells this timer when they ran. */
    private final TimerTaskEntry marker = new TimerTaskEntry(this);

    /** A timer with Kafka's defaults: a 1 ms tick, 20 buckets per level. */
    public SystemTimer(String executorName) {
        this(executorName, 1, 20, 0);
    }

    /**
     * @param executorName names the threads: {@value #SYSTEM_TIMER_THREAD_PREFIX}{@code executorName}
     * @param tickMs the wheel's resolution, at least 1
     * @param wheelSize buckets per level, at least 2
     * @param startMs Kafka's wheel origin; unused, the clock is {@code System.nanoTime()} from now
     */
    public SystemTimer(String executorName, long tickMs, int wheelSize, long startMs) {
        ModuleInfo.announce();
        this.wheel = new io.purgatory.timer.SystemTimer(SYSTEM_TIMER_THREAD_PREFIX + executorName, tickMs, wheelSize);
    }

    @Override
    public void add(TimerTask timerTask) {
        long delayMs = Math.max(0, timerTask.delayMs);
        if (timerTask.addAsNode(wheel, delayMs, marker)) {
            return; // the task is its own node: nothing allocated
        }
        // added before (Kafka allows it): an entry and a node of its own, as Kafka makes one per add
        TimerTaskEntry entry = new TimerTaskEntry(timerTask, wheel.nowMs() + delayMs);
        WheelNode node = new WheelNode(delayMs, entry, this);
        entry.wheelNode(node);
        if (entry.cancelled()) {
            node.cancel(); // cancelled (or added again) before the node was recorded: never schedule it
        }
        wheel.add(node);
    }

    /**
     * Waits up to {@code timeoutMs} for a task to run, if none has since the last call; the wheel runs
     * tasks on its own, so this only reports progress (and paces Kafka's reaper loops).
     *
     * @return whether any task ran since the previous call
     */
    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
        synchronized (progress) {
            waiting = waiting + 1; // under progress: the only writers hold it
            try {
                long now;
                while (runs.get() == lastSeenRuns && (now = System.nanoTime()) - deadline < 0) {
                    TimeUnit.NANOSECONDS.timedWait(progress, deadline - now);
                }
                long seen = runs.get();
                boolean ran = seen != lastSeenRuns;
                lastSeenRuns = seen;
                return ran;
            } finally {
                waiting = waiting - 1;
            }
        }
    }

    @Override
    public int size() {
        return wheel.size();
    }

    /** Stops the wheel and its threads; tasks not yet due never run. Idempotent. */
    @Override
    public void close() {
        wheel.close();
        closed = true;
    }

    /**
     * True once {@link #close()} has returned: the wheel's reaper has ended, and its executor ends after
     * the tasks already due. Visible for testing (Kafka's TimerTest).
     */
    boolean isTerminated() {
        return closed;
    }

    /**
     * The purgatory-core timer under this one. Not Kafka's API: the module's purgatory schedules its
     * operations' expiry on it directly, with no Kafka entry per operation.
     */
    public io.purgatory.timer.Timer coreTimer() {
        return wheel;
    }

    /** A task of this timer ran: {@link #advanceClock} reports it. */
    void ran() {
        runs.incrementAndGet();
        if (waiting > 0) {
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    /** The wheel's node for one entry of a task added again: runs the entry's task unless the entry was cancelled first. */
    private static final class WheelNode extends io.purgatory.timer.TimerTask {
        private final TimerTaskEntry entry;
        private final SystemTimer timer;

        WheelNode(long delayMs, TimerTaskEntry entry, SystemTimer timer) {
            super(delayMs);
            this.entry = entry;
            this.timer = timer;
        }

        @Override
        public void run() {
            try {
                if (!entry.cancelled()) {
                    entry.timerTask.run();
                }
            } finally {
                timer.ran();
            }
        }
    }
}
