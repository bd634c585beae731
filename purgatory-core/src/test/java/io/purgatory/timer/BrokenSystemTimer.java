package io.purgatory.timer;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A deliberately broken copy of a <em>driven</em> {@link SystemTimer} (no threads: the test runs
 * the reaper round by round and the executor batch by batch), for SystemTimerLincheckTest: each
 * {@link Bug} is one change from the original, and the model check must catch it. The copy keeps
 * only what a driven timer does; {@code close()} is not modelled. Everything else is as in the
 * original.
 *
 * <p>Thread-safe as the original claims to be, except for its bug.
 */
public final class BrokenSystemTimer extends TaskHost implements Timer {

    /** What is broken. */
    public enum Bug {
        /**
         * The reaper looks at the hand-off stacks for the last time <em>before</em> it publishes the
         * tick it parks until, the Dekker pair reordered: an add that pushes between the two reads
         * the reaper still awake and does not wake it, and the reaper parks with the task on the stack.
         */
        RECHECKS_BEFORE_PUBLISHING,
        /**
         * {@code takeAdds} checks that a task is not cancelled, then moves it to SCHEDULED from the
         * state it finds, instead of by compare-and-set from QUEUED: a {@code cancel} in between
         * returns true, and the task is scheduled and runs all the same.
         */
        SCHEDULES_CANCELLED_ADDS
    }

    private static final long NANOS_PER_MS = 1_000_000L;
    private static final long AWAKE = Long.MIN_VALUE;

    private final Bug bug;
    private final long tickMs;
    private final long tickNanos;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final TimingWheel wheel;
    private final AtomicReference<TimerNode> added = new AtomicReference<>();
    private final AtomicReference<TimerNode> cancelled = new AtomicReference<>();
    private final AtomicReference<TimerNode> expired = new AtomicReference<>();
    private final LongAdder size = new LongAdder();
    private final Consumer<TimerNode> expire = this::expire;
    private volatile long parkUntilTick = AWAKE;
    private long parkedAtTick;
    private boolean expiredBatchStarted;
    private volatile boolean reaperWakeUpPending;
    private volatile boolean executorWakeUpPending;

    public BrokenSystemTimer(Bug bug, long tickMs, int wheelSize, LongSupplier nanoClock) {
        this.bug = bug;
        this.tickMs = tickMs;
        this.tickNanos = tickMs * NANOS_PER_MS;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.wheel = new TimingWheel(wheelSize, 0);
    }

    @Override
    public void add(TimerTask task) {
        if (!task.claim(this)) {
            return;
        }
        start(task, deadlineAfter(task.delayMs()));
    }

    @Override
    void start(TimerNode task, long deadlineMs) {
        size.increment();
        handOver(task, deadlineMs);
    }

    @Override
    void reschedule(TimerNode task, long deadlineMs) {
        if (task.transition(TimerNode.FIRING, TimerNode.QUEUED)) {
            handOver(task, deadlineMs);
        }
    }

    @Override
    void finished(TimerNode task) {
        if (task.transition(TimerNode.FIRING, TimerNode.EXPIRED)) {
            size.decrement();
        }
    }

    private void handOver(TimerNode task, long deadlineMs) {
        long dueTick = -Math.floorDiv(-deadlineMs, tickMs);
        task.dueTick = dueTick;
        boolean wasEmpty = push(added, task);
        long until = parkUntilTick;
        if (dueTick < until || (wasEmpty && sleepsLong(until))) {
            reaperWakeUpPending = true;
        }
    }

    @Override
    long deadlineAfter(long delayMs) {
        return -Math.floorDiv(-elapsedNanos(), NANOS_PER_MS) + delayMs;
    }

    @Override
    long deadlineMsOfTick(long dueTick) {
        return dueTick * tickMs;
    }

    @Override
    public int size() {
        return (int) size.sum();
    }

    @Override
    public long nowMs() {
        return elapsedNanos() / NANOS_PER_MS;
    }

    /** Not modelled. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("a driven copy is never closed");
    }

    @Override
    void cancelled(TimerNode task, int previousState) {
        size.decrement();
        if (previousState == TimerNode.SCHEDULED && push(cancelled, task) && sleepsLong(parkUntilTick)) {
            reaperWakeUpPending = true;
        }
    }

    private boolean sleepsLong(long until) {
        return until != AWAKE && until - parkedAtTick > SystemTimer.HANDOFF_SLACK_TICKS;
    }

    private static boolean push(AtomicReference<TimerNode> stack, TimerNode task) {
        TimerNode head;
        do {
            head = stack.get();
            task.handoffNext = head;
        } while (!stack.compareAndSet(head, task));
        return head == null;
    }

    /** As {@link SystemTimer}'s. */
    void reaperRound() {
        reaperWakeUpPending = false;
        parkUntilTick = AWAKE;
        if (reapRound(elapsedNanos() / tickNanos) == AWAKE) {
            parkUntilTick = AWAKE;
        }
    }

    private long reapRound(long nowTick) {
        boolean tookCancellations = takeCancellations(); // both stacks are taken, whatever the first held
        boolean tookHandoffs = takeAdds() || tookCancellations;
        wheel.advance(nowTick, expire);
        if (expiredBatchStarted) {
            expiredBatchStarted = false;
            executorWakeUpPending = true;
        }
        long next = wheel.nextDueTick();
        if (tookHandoffs) {
            next = Math.min(next, nowTick + SystemTimer.HANDOFF_SLACK_TICKS);
        }
        if (bug == Bug.RECHECKS_BEFORE_PUBLISHING) {
            boolean idle = added.get() == null && cancelled.get() == null; // the bug: before the publication below
            parkedAtTick = nowTick;
            parkUntilTick = next;
            return idle ? next : AWAKE;
        }
        parkedAtTick = nowTick;
        parkUntilTick = next;
        return added.get() == null && cancelled.get() == null ? next : AWAKE;
    }

    /** As {@link SystemTimer}'s. */
    void executorBatch() {
        executorWakeUpPending = false;
        TimerNode reversed = inPushOrder(expired.getAndSet(null));
        while (reversed != null) {
            TimerNode next = reversed.handoffNext;
            reversed.handoffNext = null;
            reversed.runDue();
            reversed = next;
        }
    }

    /** As {@link SystemTimer}'s. */
    String lostWakeUp() {
        long until = parkUntilTick;
        if (until != AWAKE && !reaperWakeUpPending) {
            for (TimerNode task = added.get(); task != null; task = task.handoffNext) {
                if (task.dueTick < until) {
                    return "the reaper sleeps until tick " + until + " with " + task + " due at tick " + task.dueTick + " on the add stack";
                }
            }
            if (sleepsLong(until) && (added.get() != null || cancelled.get() != null)) {
                return "the reaper sleeps until tick " + until + " (from tick " + parkedAtTick + ") with a hand-off on a stack";
            }
        }
        if (expired.get() != null && !executorWakeUpPending) {
            return "expired tasks wait on the stack and the executor is not woken";
        }
        return null;
    }

    private boolean takeCancellations() {
        TimerNode task = cancelled.getAndSet(null);
        boolean took = task != null;
        while (task != null) {
            TimerNode next = task.handoffNext;
            task.handoffNext = null;
            if (task.isLinked()) {
                wheel.remove(task);
            }
            task = next;
        }
        return took;
    }

    private boolean takeAdds() {
        TimerNode reversed = inPushOrder(added.getAndSet(null));
        boolean took = reversed != null;
        while (reversed != null) {
            TimerNode next = reversed.handoffNext;
            reversed.handoffNext = null;
            if (scheduled(reversed) && !wheel.add(reversed)) {
                expire(reversed);
            }
            reversed = next;
        }
        return took;
    }

    private boolean scheduled(TimerNode task) {
        if (bug == Bug.SCHEDULES_CANCELLED_ADDS) {
            return task.state() != TimerNode.CANCELLED && task.transition(task.state(), TimerNode.SCHEDULED); // the bug: from whatever state it is in by now
        }
        return task.transition(TimerNode.QUEUED, TimerNode.SCHEDULED);
    }

    private void expire(TimerNode task) {
        if (task.fire()) {
            if (!task.recurs()) {
                size.decrement();
            }
            if (push(expired, task)) {
                expiredBatchStarted = true;
            }
        }
    }

    private static TimerNode inPushOrder(TimerNode stack) {
        TimerNode reversed = null;
        while (stack != null) {
            TimerNode next = stack.handoffNext;
            stack.handoffNext = reversed;
            reversed = stack;
            stack = next;
        }
        return reversed;
    }

    private long elapsedNanos() {
        return nanoClock.getAsLong() - startNanos;
    }
}
