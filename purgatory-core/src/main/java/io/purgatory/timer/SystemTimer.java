package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import org.jspecify.annotations.Nullable;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Timer} on a hierarchical timing wheel, with its own reaper thread.
 *
 * <p>The wheel ({@link TimingWheel}) belongs to the reaper thread alone. Other threads hand work
 * over through lock-free stacks linked through the tasks themselves: {@link #add} pushes the
 * task on {@code added} (striped by thread, {@link AddStacks}, so that threads adding at once do not
 * fight over one head); a cancel ({@link TimerTask#cancel()}, an operation's completion) that wins against a task already in the wheel
 * pushes it on {@code cancelled}, and the reaper unlinks it in O(1).
 *
 * <p>The reaper loop: take the cancellations, take the adds, move the wheel to the current tick
 * (expired tasks go to the executor in due order), then park until the earliest non-empty bucket
 * is due, or indefinitely when the wheel is empty. It never wakes every tick while idle.
 *
 * <p>Wake-ups are paid only when they change something. Before parking, the reaper publishes the
 * tick it will wake at ({@code parkUntilTick}) and then looks at the stacks once more; a thread
 * that pushed reads {@code parkUntilTick} after its push (the volatile accesses on each side make
 * one of them see the other). A hand-off unparks the reaper only if its task is due before that
 * tick, or if it pushed onto an empty stack while the reaper sleeps longer than
 * {@value #HANDOFF_SLACK_TICKS} ticks. A reaper that took hand-offs in its last round sleeps at
 * most that long, so under steady traffic no add or cancel pays for a wake-up, while a cancelled
 * task (with whatever it references) is still unlinked within that bound, not when its bucket comes
 * round, and the stacks never grow for longer than that.
 *
 * <p>Expired tasks go to the executor thread through a third stack, linked through the tasks, and
 * one unpark per batch: no allocation and no lock per expiry.
 *
 * <p>Time is {@link System#nanoTime()} measured from construction, so wall-clock jumps cannot
 * fire or stall tasks, and no comparison crosses the sign of {@code nanoTime}. A task's due tick is
 * its deadline rounded <em>up</em> to a tick boundary: a task never runs before its delay has
 * passed, and runs at most about one tick (plus scheduling latency) after it.
 *
 * <p>Expired tasks run on one executor thread, in due-tick order, never on the thread that called
 * {@link #add}. An exception thrown by a task is logged and does not stop the timer. Thread names
 * are {@code <name>-reaper} and {@code <name>-executor}; both threads are daemons. With
 * {@link TaskThread#REAPER} there is no executor: the reaper runs each round's due tasks itself,
 * right after advancing the wheel, and a task it runs that adds or puts back a task links it into
 * the wheel directly (see the risk there).
 *
 * <p>Deadlines are whole milliseconds on {@link #nowMs()}'s clock, rounded up from the add time; a
 * task's due tick is its deadline rounded up to the tick. A recurring callback is one task that the
 * reaper hands to the executor in state FIRING and that, once run, goes back through the same add
 * stack with its next deadline (written by the executor before the push), still counted in
 * {@link #size()}: no allocation per run, and a {@code cancel()} that wins against FIRING makes the
 * push back fail.
 *
 * <p>For the model checks (SystemTimerLincheckTest) a package-private constructor makes a
 * <em>driven</em> timer: its clock is a supplier of nanoseconds, it starts no threads, and the test
 * runs the reaper one round at a time ({@code reaperRound()}) and the executor one batch at a time
 * ({@code executorBatch()}), from threads of its choosing. A wake-up of a driven reaper or executor
 * is recorded as pending ({@code reaperWakeUpPending}, {@code executorWakeUpPending}) instead of
 * unparking a thread, so that {@code lostWakeUp()} can check as state that no hand-off is slept
 * through. The reaper and executor threads of a timer that is not driven run those same rounds and
 * batches in a loop, parking between them.
 *
 * <p>Thread-safe. Fields: {@code wheel}, {@code parkedAtTick}, {@code roundTick}, {@code expiredBatchStarted} and the
 * link fields of every task in the wheel are written by the reaper (its thread, or in driven mode the
 * caller of {@code reaperRound()}, one at a time) only (a task's {@code dueTick} by the thread that
 * pushes it onto {@code added}, before the push); {@code added}, {@code cancelled}, {@code expired},
 * {@code size}, {@code closed}, {@code reaperDone}, {@code parkUntilTick} and the two wake-up flags
 * of driven mode are atomics or volatiles shared by all threads; the rest is final.
 */
public final class SystemTimer extends TaskHost implements Timer {

    private static final Logger LOG = LoggerFactory.getLogger(SystemTimer.class);
    private static final long NANOS_PER_MS = 1_000_000L;
    /** {@code parkUntilTick} while the reaper runs: no hand-off needs to wake it. */
    private static final long AWAKE = Long.MIN_VALUE;
    /** The longest a hand-off waits for the reaper: how long it sleeps after taking hand-offs. */
    static final long HANDOFF_SLACK_TICKS = 10;
    /** Buckets per level of {@link #SystemTimer(String)}: a power of two, so the wheel shifts and masks. */
    public static final int DEFAULT_WHEEL_SIZE = 1024;

    private final String name;
    private final long tickMs;
    private final long tickNanos;
    /** The clock, in nanoseconds: {@link System#nanoTime()}, or the test's in driven mode. */
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final TimingWheel wheel;
    /** Striped by the adding thread; a driven timer has two stripes, so that three model-checked threads share one. */
    private final AddStacks added;
    private final AtomicReference<@Nullable TimerNode> cancelled = new AtomicReference<>();
    private final AtomicReference<@Nullable TimerNode> expired = new AtomicReference<>();
    /** Tasks added and neither cancelled nor expired (a recurring one until cancelled or ended); see {@link PendingCount}. */
    private final PendingCount size = new PendingCount();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Consumer<TimerNode> expire = this::expire;
    /** The reaper thread, or null in driven mode. */
    private final @Nullable Thread reaper;
    /** The executor thread, or null in driven mode and when tasks run on the reaper. */
    private final @Nullable Thread executor;
    /** Whether due tasks run on the reaper thread ({@link TaskThread#REAPER}). */
    private final boolean runsOnReaper;
    private volatile long parkUntilTick = AWAKE;
    /** The tick the reaper parked at; written before {@code parkUntilTick}, read after it. */
    private long parkedAtTick;
    /** The tick of the reaper's current round; the reaper's only (its tasks' {@link #gridClockMs()}). */
    private long roundTick;
    private volatile boolean reaperDone;
    /** Whether the reaper pushed onto an empty {@code expired} stack in this round; reaper only. */
    private boolean expiredBatchStarted;
    /** Driven mode: a wake-up of the reaper is pending (its park would return); the next round takes it. */
    private volatile boolean reaperWakeUpPending;
    /** Driven mode: a wake-up of the executor is pending; the next batch takes it. */
    private volatile boolean executorWakeUpPending;
    /** A deliberate bug of a driven timer, for the model checks; null in every other timer. */
    private final @Nullable Fault fault;

    /**
     * A deliberate bug, that a driven timer built for the model checks (SystemTimerLincheckTest) carries
     * so that the checks show they catch it, on this very code rather than on a copy of it. A timer of
     * the public constructors has none ({@code fault} is null): the reaper compares it once per round,
     * never per task. Kept here rather than in a test subclass because each fault reorders two reads
     * inside one reaper step, which no subclass or wrapper can reach without copying that step.
     */
    enum Fault {
        /**
         * The reaper looks at the hand-off stacks for the last time <em>before</em> it publishes the
         * tick it parks until, the Dekker pair reordered: an add that pushes between the two reads
         * the reaper still awake and does not wake it, and the reaper parks with the task on the stack.
         */
        RECHECKS_BEFORE_PUBLISHING,
        /**
         * {@code takeAdds} checks that a task is not cancelled, then moves it to SCHEDULED from the
         * state it reads once more, instead of by compare-and-set from the one state it checked: a
         * {@code cancel} in between returns true, and the task is scheduled and runs all the same.
         */
        SCHEDULES_CANCELLED_ADDS
    }

    /**
     * Which thread runs the tasks and callbacks that fall due.
     */
    public enum TaskThread {
        /**
         * A thread of the timer's own, {@code <name>-executor} (the default): the reaper hands each
         * round's due tasks over in one batch. A task that runs long delays the tasks after it, but
         * never the timer's bookkeeping: adds, cancellations and the wheel go on.
         */
        EXECUTOR,
        /**
         * The reaper itself, as Netty's {@code HashedWheelTimer} runs its tasks on its worker: no
         * hand-off, no second thread, and a recurring callback is put back into the wheel directly,
         * so each run costs less CPU. <b>The risk</b>: while a task runs, the timer does nothing else.
         * A task that blocks, or runs for longer than a tick, makes every other task late by as much,
         * and the add and cancel hand-offs pile up meanwhile. Use it for short callbacks that never
         * block (a counter, a flag, a non-blocking send); keep {@link #EXECUTOR} for anything else.
         */
        REAPER
    }

    /**
     * A timer with a 1 ms tick and {@value #DEFAULT_WHEEL_SIZE} buckets per level (Kafka's wheel has
     * 20, Netty's single level 512): level 0 spans a second, so a delay or period of up to a second
     * (1,024 ms) never moves between levels, and a 30 s deadline moves once instead of three times. It
     * costs about 53 KB per level (a level is made when a deadline first needs it: one for deadlines up
     * to 1 s, two up to 17 minutes, three up to 12 days), against about 1 KB per level with 20 buckets.
     *
     * @param name names the timer's threads
     * @throws NullPointerException if name is null
     */
    public SystemTimer(String name) {
        this(name, 1, DEFAULT_WHEEL_SIZE);
    }

    /**
     * @param name names the timer's threads
     * @param tickMs the width of a level-0 bucket, from 1 ms to {@code Long.MAX_VALUE / 1_000_000}
     *     (so that a tick fits in nanoseconds): the timer's resolution
     * @param wheelSize buckets per level, at least 2; a power of two makes bucket lookup a mask
     */
    public SystemTimer(String name, long tickMs, int wheelSize) {
        this(name, tickMs, wheelSize, TaskThread.EXECUTOR);
    }

    /**
     * @param name names the timer's threads
     * @param tickMs the width of a level-0 bucket, from 1 ms to {@code Long.MAX_VALUE / 1_000_000}
     *     (so that a tick fits in nanoseconds): the timer's resolution
     * @param wheelSize buckets per level, at least 2; a power of two makes bucket lookup a mask
     * @param taskThread which thread runs due tasks: read {@link TaskThread#REAPER}'s risk first
     */
    public SystemTimer(String name, long tickMs, int wheelSize, TaskThread taskThread) {
        this(name, tickMs, wheelSize, System::nanoTime, true, Objects.requireNonNull(taskThread, "taskThread") == TaskThread.REAPER, null);
    }

    /**
     * A driven timer, for the model checks: time is {@code nanoClock}, no thread is started, and the
     * caller runs the reaper with {@link #reaperRound()} and the executor with {@link #executorBatch()}.
     */
    SystemTimer(String name, long tickMs, int wheelSize, LongSupplier nanoClock) {
        this(name, tickMs, wheelSize, nanoClock, false, false, null);
    }

    /** A driven timer with a deliberate bug, for the model checks to catch. */
    SystemTimer(String name, long tickMs, int wheelSize, LongSupplier nanoClock, Fault fault) {
        this(name, tickMs, wheelSize, nanoClock, false, false, Objects.requireNonNull(fault, "fault"));
    }

    private SystemTimer(String name, long tickMs, int wheelSize, LongSupplier nanoClock, boolean startThreads, boolean runsOnReaper,
            @Nullable Fault fault) {
        this.name = Objects.requireNonNull(name, "name");
        if (tickMs < 1 || tickMs > Long.MAX_VALUE / NANOS_PER_MS) {
            throw new IllegalArgumentException("tickMs must be from 1 to " + Long.MAX_VALUE / NANOS_PER_MS + ": " + tickMs);
        }
        this.tickMs = tickMs;
        this.tickNanos = tickMs * NANOS_PER_MS;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.wheel = new TimingWheel(wheelSize, 0);
        this.added = startThreads ? new AddStacks() : new AddStacks(2);
        this.runsOnReaper = runsOnReaper;
        this.fault = fault;
        if (startThreads) {
            this.executor = runsOnReaper ? null : daemon(this::runExpired, name + "-executor");
            this.reaper = daemon(this::reap, name + "-reaper");
            if (executor != null) {
                executor.start();
            }
            reaper.start();
        } else {
            this.executor = null;
            this.reaper = null;
        }
    }

    @Override
    public void add(TimerTask task) {
        if (!task.claim(this)) {
            return; // cancelled before it was added
        }
        start(task, deadlineAfter(task.delayMs()));
    }

    @Override
    void start(TimerNode task, long deadlineMs) {
        if (closed.get()) {
            TimerNodes.leaveQueue(task, TimerNodes.CANCELLED);
            throw new IllegalStateException("timer " + name + " is closed");
        }
        size.increment();
        handOver(task, deadlineMs);
    }

    @Override
    void reschedule(TimerNode task, long deadlineMs) {
        if (closed.get()) {
            TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED); // what was pending is dropped
            return;
        }
        if (runsOnReaper && Thread.currentThread() == reaper) {
            TimerNodes.dueTick(task, dueTickOf(deadlineMs));
            if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.SCHEDULED) && !wheel.add(task)) { // else cancelled during its run
                expire(task); // due already: it runs in this round's next batch
            }
            return;
        }
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.QUEUED)) { // else cancelled during its run
            handOver(task, deadlineMs);
        }
    }

    @Override
    void finished(TimerNode task) {
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED)) {
            size.decrement();
        }
    }

    /** Pushes a QUEUED task for the reaper, waking it if the task is due before it would wake. */
    private void handOver(TimerNode task, long deadlineMs) {
        long dueTick = dueTickOf(deadlineMs);
        TimerNodes.dueTick(task, dueTick);
        if (runsOnReaper && Thread.currentThread() == reaper) {
            link(task); // a task running on the reaper (a recurring one put back): the wheel is this thread's
            return;
        }
        boolean wasEmpty = added.push(task);
        long until = parkUntilTick;
        if (dueTick < until || (wasEmpty && sleepsLong(until))) {
            wakeReaper();
        }
    }

    /** The tick a deadline falls due at: rounded up, never before it (no division with the default 1 ms tick). */
    private long dueTickOf(long deadlineMs) {
        return tickMs == 1 ? deadlineMs : ceilDiv(deadlineMs, tickMs);
    }

    @Override
    long deadlineAfter(long delayMs) {
        return saturatedAdd(ceilDiv(elapsedNanos(), NANOS_PER_MS), delayMs); // the next whole ms: never early
    }

    @Override
    long deadlineMsOfTick(long dueTick) {
        return saturatedMultiply(dueTick, tickMs);
    }

    @Override
    public int size() {
        if (closed.get()) {
            return 0; // what was pending will never run
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, size.sum()));
    }

    /** On the reaper running a task ({@link TaskThread#REAPER}): the start of its round, read from no clock. */
    @Override
    long gridClockMs() {
        return runsOnReaper && Thread.currentThread() == reaper ? saturatedMultiply(roundTick, tickMs) : nowMs();
    }

    @Override
    public long nowMs() {
        return elapsedNanos() / NANOS_PER_MS;
    }

    /**
     * Stops the reaper and the executor; tasks not yet due are never run, recurring callbacks are not
     * scheduled again (a run already handed to the executor still runs), and the number of tasks that
     * were pending is logged at INFO. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("Timer {} closed: {} pending tasks dropped", name, Math.max(0, size.sum()));
        wakeReaper();
        if (reaper != null && Thread.currentThread() != reaper) { // a task run on the reaper may close its timer
            try {
                reaper.join(); // the reaper runs no user code (or, with TaskThread.REAPER, short tasks), so this wait is short
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        reaperDone = true;
        wakeExecutor(); // tasks already expired still run; the executor thread then ends
    }

    @Override
    public String toString() {
        return "SystemTimer[" + name + ", tick " + tickNanos / NANOS_PER_MS + " ms, " + size() + " tasks]";
    }

    @Override
    void cancelled(TimerNode task, int previousState) {
        size.decrement();
        if (previousState == TimerNodes.SCHEDULED && push(cancelled, task) && sleepsLong(parkUntilTick)) {
            wakeReaper(); // unlink the task now, not when the reaper next wakes
        }
        // a QUEUED task is still on the add stack (or about to be): the reaper drops it when it takes
        // the stack; a FIRING one is out of the wheel, and its reschedule fails
    }

    /** Whether a reaper parked until {@code until} sleeps longer than the hand-off slack. */
    private boolean sleepsLong(long until) {
        return until != AWAKE && until - parkedAtTick > HANDOFF_SLACK_TICKS;
    }

    /** Pushes onto a hand-off stack; returns whether the stack was empty. */
    private static boolean push(AtomicReference<@Nullable TimerNode> stack, TimerNode task) {
        TimerNode head;
        do {
            head = stack.get();
            TimerNodes.handoffNext(task, head);
        } while (!stack.compareAndSet(head, task));
        return head == null;
    }

    /** Wakes the reaper: unparks its thread, or in driven mode leaves the wake-up pending for its next round. */
    private void wakeReaper() {
        if (reaper != null) {
            LockSupport.unpark(reaper);
        } else {
            reaperWakeUpPending = true;
        }
    }

    /** Wakes the executor: unparks its thread, or in driven mode leaves the wake-up pending for its next batch. */
    private void wakeExecutor() {
        if (executor != null) {
            LockSupport.unpark(executor);
        } else {
            executorWakeUpPending = true;
        }
    }

    private void reap() {
        while (!closed.get()) {
            long until = reapRound(elapsedNanos() / tickNanos);
            if (until == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else if (until != AWAKE) {
                long wait = saturatedMultiply(until, tickNanos) - elapsedNanos();
                if (wait > 0) {
                    LockSupport.parkNanos(this, wait);
                }
            }
            parkUntilTick = AWAKE;
        }
    }

    /**
     * One round of the reaper at {@code nowTick}: takes the cancellations and the adds, advances the
     * wheel (due tasks go to the executor, woken once), publishes the tick it will sleep until, then
     * looks at the stacks once more.
     *
     * @return the tick to park until ({@code Long.MAX_VALUE}: until woken), or {@link #AWAKE} to go
     *     round again at once (a hand-off arrived, or the timer is closed)
     */
    private long reapRound(long nowTick) {
        roundTick = nowTick;
        boolean tookCancellations = takeCancellations(); // both stacks are taken, whatever the first held
        boolean tookHandoffs = takeAdds() || tookCancellations;
        wheel.advance(nowTick, expire);
        while (expiredBatchStarted) {
            expiredBatchStarted = false;
            if (runsOnReaper) {
                runExpiredBatch(); // a task it runs may link another that is due already: loop
            } else {
                wakeExecutor();
            }
        }
        long next = wheel.nextDueTick();
        if (tookHandoffs) {
            next = Math.min(next, nowTick + HANDOFF_SLACK_TICKS); // more are likely on their way
        }
        boolean idleBeforePublishing = fault == Fault.RECHECKS_BEFORE_PUBLISHING && handOffsIdle();
        parkedAtTick = nowTick;
        parkUntilTick = next; // from here on, a hand-off decides whether to wake us
        boolean idle = fault == Fault.RECHECKS_BEFORE_PUBLISHING ? idleBeforePublishing : handOffsIdle();
        return idle ? next : AWAKE;
    }

    /** Whether every hand-off stack is empty and the timer is open: a reaper may park. */
    private boolean handOffsIdle() {
        return added.isEmpty() && cancelled.get() == null && !closed.get();
    }

    /**
     * Driven mode: the reaper wakes (taking a pending wake-up, as its park would) and runs one round
     * at the clock's tick; it is then parked until {@code parkUntilTick}, or awake if the round found
     * more to do. Called by one thread at a time, not after {@link #close()}.
     */
    void reaperRound() {
        reaperWakeUpPending = false;
        parkUntilTick = AWAKE;
        if (reapRound(elapsedNanos() / tickNanos) == AWAKE) {
            parkUntilTick = AWAKE; // as the thread's loop does at once when it does not park
        }
    }

    /**
     * Driven mode: the executor wakes (taking a pending wake-up) and runs the tasks handed to it.
     * Called by one thread at a time.
     */
    void executorBatch() {
        executorWakeUpPending = false;
        runExpiredBatch();
    }

    /**
     * Driven mode, with no round or batch under way: a hand-off that the reaper or the executor would
     * sleep through, described, or null. A reaper parked until {@code parkUntilTick} with no wake-up
     * pending must have no added task due before that tick and, if it sleeps longer than the slack,
     * every hand-off stack empty; expired tasks waiting for the executor need its wake-up pending.
     */
    @Nullable String lostWakeUp() {
        long until = parkUntilTick;
        if (until != AWAKE && !reaperWakeUpPending) {
            for (int stripe = 0; stripe < added.stripes(); stripe++) {
                for (TimerNode task = added.peek(stripe); task != null; task = TimerNodes.handoffNext(task)) {
                    if (TimerNodes.dueTick(task) < until) {
                        return "the reaper sleeps until tick " + until + " with " + task + " due at tick " + TimerNodes.dueTick(task) + " on the add stack";
                    }
                }
            }
            if (sleepsLong(until) && (!added.isEmpty() || cancelled.get() != null)) {
                return "the reaper sleeps until tick " + until + " (from tick " + parkedAtTick + ") with a hand-off on a stack";
            }
        }
        if (expired.get() != null && !executorWakeUpPending) {
            return "expired tasks wait on the stack and the executor is not woken";
        }
        return null;
    }

    /** Unlinks the cancelled tasks handed over; returns whether there were any. */
    private boolean takeCancellations() {
        TimerNode task = cancelled.getAndSet(null);
        boolean took = task != null;
        while (task != null) {
            TimerNode next = TimerNodes.handoffNext(task);
            TimerNodes.handoffNext(task, null);
            if (TimerNodes.isLinked(task)) {
                wheel.remove(task);
            }
            task = next;
        }
        return took;
    }

    /** Puts the added tasks into the wheel, stripe by stripe; returns whether there were any. */
    private boolean takeAdds() {
        boolean took = false;
        for (int stripe = 0; stripe < added.stripes(); stripe++) {
            TimerNode stack = added.take(stripe);
            if (stack != null) {
                took = true;
                takeAdds(stack);
            }
        }
        return took;
    }

    /** Puts the tasks of one taken add stack into the wheel. */
    private void takeAdds(TimerNode taken) {
        TimerNode stack = taken;
        // reversed, so that tasks sharing a bucket run in add order; the ones cancelled already (an
        // add and a cancel in quick succession, the common case for timeouts) are dropped in the same
        // pass, so that the reaper reads each of them once
        TimerNode reversed = null;
        while (stack != null) {
            TimerNode next = TimerNodes.handoffNext(stack);
            if (TimerNodes.state(stack) == TimerNodes.CANCELLED) {
                TimerNodes.handoffNext(stack, null);
            } else {
                TimerNodes.handoffNext(stack, reversed);
                reversed = stack;
            }
            stack = next;
        }
        boolean fromAnyState = fault == Fault.SCHEDULES_CANCELLED_ADDS;
        while (reversed != null) {
            TimerNode next = TimerNodes.handoffNext(reversed);
            TimerNodes.handoffNext(reversed, null); // before the task becomes SCHEDULED: a canceller may then reuse it
            if (fromAnyState) {
                linkFromAnyState(reversed);
            } else {
                link(reversed);
            }
            reversed = next;
        }
    }

    /** On the reaper: links a QUEUED task into the wheel, or hands it out if it is due already; a cancelled one is dropped. */
    private void link(TimerNode task) {
        if (TimerNodes.leaveQueue(task, TimerNodes.SCHEDULED) && !wheel.add(task)) {
            expire(task);
        }
    }

    /**
     * {@link Fault#SCHEDULES_CANCELLED_ADDS}: {@link #link} with its one read of the state and
     * compare-and-set from it replaced by a check and a move from the state found on a second read.
     */
    private void linkFromAnyState(TimerNode task) {
        if (TimerNodes.state(task) != TimerNodes.CANCELLED && TimerNodes.transition(task, TimerNodes.state(task), TimerNodes.SCHEDULED) && !wheel.add(task)) {
            expire(task);
        }
    }

    /** On the reaper: hands a due task to the executor (woken once per round, in {@link #reapRound}). */
    private void expire(TimerNode task) {
        if (Nodes.fire(task)) {
            if (!Nodes.recurs(task)) {
                size.decrement(); // a recurring task stays pending until it is cancelled or its schedule ends
            }
            if (push(expired, task)) {
                expiredBatchStarted = true;
            }
        }
    }

    /** The executor thread: runs expired tasks in due order until the timer is closed and none are left. */
    private void runExpired() {
        while (true) {
            if (!runExpiredBatch()) {
                if (!reaperDone) {
                    LockSupport.park(this);
                } else if (!runExpiredBatch()) { // the reaper has stopped: that was the last batch
                    return;
                }
            }
        }
    }

    /** Takes the expired stack and runs its tasks in due order; returns whether there were any. */
    private boolean runExpiredBatch() {
        TimerNode reversed = inPushOrder(expired.getAndSet(null)); // due order
        boolean took = reversed != null;
        while (reversed != null) {
            TimerNode next = TimerNodes.handoffNext(reversed);
            TimerNodes.handoffNext(reversed, null);
            runTask(reversed);
            reversed = next;
        }
        return took;
    }

    /** Reverses a taken hand-off stack (last-in first-out) into the order its tasks were pushed. */
    private static @Nullable TimerNode inPushOrder(@Nullable TimerNode stack) {
        TimerNode reversed = null;
        while (stack != null) {
            TimerNode next = TimerNodes.handoffNext(stack);
            TimerNodes.handoffNext(stack, reversed);
            reversed = stack;
            stack = next;
        }
        return reversed;
    }

    private void runTask(TimerNode task) {
        try {
            Nodes.runDue(task);
        } catch (Throwable t) {
            LOG.error("Timer {}: task {} threw", name, task, t);
        }
    }

    private long elapsedNanos() {
        return nanoClock.getAsLong() - startNanos;
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
