package io.purgatory;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.jmxIgnored;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.parksInEarnest;
import static io.purgatory.timer.ModelChecking.scenario;

import io.purgatory.timer.BrokenMockTimer;
import io.purgatory.timer.MockTimer;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A purgatory on a {@link MockTimer}, model-checked: two threads offer operations (by key and by
 * position), advance the key's position, check the key, cancel it, move the timer (expiring what is
 * due) and close the purgatory, in every interleaving of small scenarios.
 *
 * <p>Each operation waits for the key's position to reach its threshold: {@code op 0} by key
 * (announced by {@code checkAndComplete}), {@code op 1} and {@code op 2} at positions 1 and 2
 * (announced by {@code advance}). Checked as it runs (an exception in the results): {@code onComplete}
 * runs once, never beside {@code tryComplete}, nothing is tried once completed, and a
 * {@code forceComplete} from {@code tryComplete} (under the lock) always completes the operation; {@code
 * onExpiration} runs after {@code onComplete} and only for an operation that expired or was closed.
 * Checked at quiescence ({@link Scenario#validate}): every operation whose position was announced
 * has completed (no lost wake-up), {@code numDelayed} counts exactly the operations still waiting and
 * {@code watched} at least those; then, the timer moved past every deadline, every operation offered
 * has completed exactly once and nothing is delayed.
 *
 * <p>A purgatory cannot be copied to break it (an operation is bound to the real class), so the
 * broken variant breaks what it relies on: {@link BrokenMockTimer} links an added task after leaving
 * its monitor, and an advance that empties that deadline's bucket meanwhile orphans it; the operation
 * then never expires, which the same validation must report.
 */
@Tag("lincheck")
class PurgatoryLincheckTest {

    private static final String KEY = "p0";
    private static final long DELAY_MS = 10;

    /** An operation that completes when the key's position reaches {@code threshold}, and checks its own life cycle. */
    static final class Threshold extends DelayedOperation {
        private final AtomicLong position;
        private final long threshold;
        private final AtomicInteger completions = new AtomicInteger();
        private final AtomicInteger expirations = new AtomicInteger();
        /** The thread inside tryComplete or onComplete; they must never overlap on two threads. */
        private final AtomicReference<Thread> inside = new AtomicReference<>();
        volatile boolean offered;

        /** The thresholds of the operations completed by the advance this thread is in, if any. */
        private final ThreadLocal<List<Long>> advancing;

        Threshold(AtomicLong position, long threshold, ThreadLocal<List<Long>> advancing) {
            super(DELAY_MS);
            this.position = position;
            this.threshold = threshold;
            this.advancing = advancing;
        }

        @Override
        public boolean tryComplete() {
            Thread outer = enter();
            try {
                if (isCompleted()) {
                    throw new AssertionError("tryComplete on a completed operation");
                }
                if (position.get() < threshold) {
                    return false;
                }
                if (!forceComplete() || completion() != Completion.COMPLETED) {
                    throw new AssertionError("forceComplete under the lock lost: completion " + completion());
                }
                return true;
            } finally {
                inside.set(outer);
            }
        }

        @Override
        public void onComplete() {
            Thread outer = enter();
            try {
                if (completions.incrementAndGet() != 1) {
                    throw new AssertionError("onComplete ran twice");
                }
                List<Long> completedByAdvance = advancing.get();
                if (completedByAdvance != null) {
                    completedByAdvance.add(threshold);
                }
            } finally {
                inside.set(outer);
            }
        }

        @Override
        public void onExpiration() {
            Completion how = completion();
            if (completions.get() != 1 || (how != Completion.EXPIRED && how != Completion.CLOSED)) {
                throw new AssertionError("onExpiration after " + completions.get() + " onComplete, completion " + how);
            }
            expirations.incrementAndGet();
        }

        /** Claims the operation for this thread (nesting on one thread is the normal path); returns the previous claim. */
        private Thread enter() {
            Thread me = Thread.currentThread();
            Thread outer = inside.get();
            if (outer != me && !inside.compareAndSet(null, me)) {
                throw new AssertionError("tryComplete or onComplete on two threads at once");
            }
            return outer == me ? me : null;
        }
    }

    /** Names purgatories apart: each registers its metrics over JMX under its name. */
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    @Param(name = "op", gen = IntGen.class, conf = "0:2")
    public abstract static class Scenario {
        private final Timer timer;
        private final Runnable tick;
        private final DelayedOperationPurgatory<Threshold> purgatory;
        private final AtomicLong position = new AtomicLong();
        /** The highest position a checkAndComplete announced, read before it walked. */
        private final AtomicLong checkedAt = new AtomicLong(-1);
        private final ThreadLocal<List<Long>> advancing = new ThreadLocal<>();
        private final Threshold[] ops = {
            new Threshold(position, 1, advancing), new Threshold(position, 1, advancing), new Threshold(position, 2, advancing),
        };

        Scenario(Timer timer, Runnable tick) {
            this.timer = timer;
            this.tick = tick;
            this.purgatory = DelayedOperationPurgatory.builder("lincheck-" + INSTANCES.incrementAndGet())
                    .timer(timer).reaperEnabled(false).purgeInterval(1).build();
        }

        @Operation
        public void offer(@Param(name = "op") int i) {
            Threshold op = ops[i];
            synchronized (op) {
                if (op.offered) {
                    return;
                }
                op.offered = true;
            }
            if (i == 0) {
                purgatory.tryCompleteElseWatch(op, List.of(KEY));
            } else {
                purgatory.tryCompleteElseWatchPosition(op, KEY, op.threshold);
            }
        }

        /** The key's position moves up by one and is announced; what the advance completes, it completes lowest first. */
        @Operation
        public void advance() {
            List<Long> completed = new ArrayList<>();
            advancing.set(completed);
            try {
                purgatory.advance(KEY, position.incrementAndGet());
            } finally {
                advancing.remove();
            }
            for (int i = 1; i < completed.size(); i++) {
                if (completed.get(i) < completed.get(i - 1)) {
                    throw new AssertionError("an advance completed positions out of order: " + completed);
                }
            }
        }

        @Operation
        public void checkAndComplete() {
            long announced = position.get();
            purgatory.checkAndComplete(KEY);
            checkedAt.accumulateAndGet(announced, Math::max);
        }

        @Operation
        public void cancel() {
            purgatory.cancelForKey(KEY, "deleted");
        }

        /** Time passes: whatever is due expires. */
        @Operation
        public void tick() {
            tick.run();
        }

        @Operation(runOnce = true)
        public void close() {
            purgatory.close();
        }

        @Validate
        public void validate() {
            int waiting = 0;
            for (Threshold op : ops) {
                boolean announced = op == ops[0] ? checkedAt.get() >= op.threshold : position.get() >= op.threshold;
                if (op.offered && announced && !op.isCompleted()) {
                    throw new AssertionError("position " + op.threshold + " was announced, but " + op + " still waits");
                }
                if (op.offered && !op.isCompleted()) {
                    waiting++;
                }
            }
            if (purgatory.numDelayed() != waiting || purgatory.watched() < waiting) {
                throw new AssertionError(waiting + " waiting, but numDelayed " + purgatory.numDelayed() + " and watched " + purgatory.watched());
            }
            for (int i = 0; i < 3; i++) {
                tick.run();
            }
            for (Threshold op : ops) {
                if (op.offered && (op.completions.get() != 1 || !op.isCompleted())) {
                    throw new AssertionError(op + " offered, but completed " + op.completions.get() + " times after every deadline passed");
                }
            }
            if (purgatory.numDelayed() != 0) {
                throw new AssertionError("numDelayed " + purgatory.numDelayed() + " after every deadline passed");
            }
            purgatory.close();
        }
    }

    /** The scenario on the real {@link MockTimer}. */
    public static class Real extends Scenario {
        public Real() {
            this(new MockTimer());
        }

        private Real(MockTimer timer) {
            super(timer, () -> timer.advance(DELAY_MS));
        }
    }

    /** The scenario on the broken timer. */
    public static class Broken extends Scenario {
        public Broken() {
            this(new BrokenMockTimer(BrokenMockTimer.Bug.LINKS_OUTSIDE_MONITOR));
        }

        private Broken(BrokenMockTimer timer) {
            super(timer, () -> timer.advance(DELAY_MS));
        }
    }

    private static ModelCheckingOptions options2x3(Class<? extends Scenario> test) {
        return options(5, 300, 2, 3)
                .addGuarantee(parksInEarnest(DelayedOperation.class, "parkForUnlock"))
                .addGuarantee(jmxIgnored())
                // an offer racing an advance past its position: the re-check after linking must catch it
                .addCustomScenario(scenario(test).thread(0, "offer", 1).thread(1, "advance").build())
                // an offer racing a tick that empties the bucket of its deadline
                .addCustomScenario(scenario(test).first("offer", 2).thread(0, "tick").thread(1, "offer", 1).build())
                // cancellation and close racing an offer
                .addCustomScenario(scenario(test).first("offer", 0).thread(0, "cancel").thread(1, "offer", 2).build())
                .addCustomScenario(scenario(test).first("offer", 0).thread(0, "close").thread(1, "offer", 1).build())
                // two advances over watches linked out of order (position 2, then 1)
                .addCustomScenario(scenario(test).first("offer", 2).first("offer", 1).thread(0, "advance").thread(1, "advance").build());
    }

    @Test
    void everyOperationCompletesExactlyOnceAndNoneIsStranded() {
        options2x3(Real.class).check(Real.class);
    }

    @Test
    void aTimerThatOrphansAnAddedTaskIsCaught() {
        assertCaught(options2x3(Broken.class), Broken.class);
    }
}
