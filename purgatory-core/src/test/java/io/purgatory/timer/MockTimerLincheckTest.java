package io.purgatory.timer;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.scenario;

import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link TimerTask}'s life cycle on a {@link MockTimer}, model-checked for linearizability: tasks
 * are added, cancelled and run by time advancing, from two threads. A {@code cancel} returns what
 * the sequential timer would return in some order of the calls, a task runs at most once, and never
 * after a {@code cancel} that returned true ({@link Scenario#validate}); {@code size} matches at
 * quiescence.
 *
 * <p>The same scenario runs against {@link BrokenMockTimer} with
 * {@link BrokenMockTimer.Bug#RUNS_WITHOUT_CLAIM}: a task that is both run and cancelled must be caught.
 */
@Tag("lincheck")
class MockTimerLincheckTest {

    /** A task that counts its runs. */
    static final class Counted extends TimerTask {
        private final AtomicInteger runs = new AtomicInteger();

        Counted(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs.incrementAndGet();
        }

        int runs() {
            return runs.get();
        }
    }

    @Param(name = "task", gen = IntGen.class, conf = "0:1")
    public abstract static class Scenario {
        private final Timer timer;
        private final Runnable tick;
        private final Counted[] tasks = {new Counted(1), new Counted(1)};
        private final boolean[] added = new boolean[2];
        private final boolean[] cancelledByCall = new boolean[2];

        Scenario(Timer timer, Runnable tick) {
            this.timer = timer;
            this.tick = tick;
        }

        /** Adds on one thread only: two concurrent adds of one task are a misuse (the second throws). */
        @Operation(nonParallelGroup = "add")
        public void add(@Param(name = "task") int i) {
            synchronized (added) {
                if (added[i]) {
                    return;
                }
                added[i] = true;
            }
            timer.add(tasks[i]);
        }

        @Operation
        public boolean cancel(@Param(name = "task") int i) {
            boolean cancelled = tasks[i].cancel();
            if (cancelled) {
                synchronized (cancelledByCall) {
                    cancelledByCall[i] = true;
                }
            }
            return cancelled;
        }

        /** One millisecond passes: every task added by then is due. */
        @Operation
        public void tick() {
            tick.run();
        }

        @Validate
        public void validate() {
            int pending = 0;
            for (int i = 0; i < tasks.length; i++) {
                int runs = tasks[i].runs();
                if (runs > 1 || (runs == 1 && cancelledByCall[i])) {
                    throw new AssertionError("task " + i + " ran " + runs + " times, cancel returned " + cancelledByCall[i]);
                }
                if (added[i] && runs == 0 && !tasks[i].isCancelled()) {
                    pending++;
                }
            }
            if (timer.size() != pending) {
                throw new AssertionError("size " + timer.size() + " with " + pending + " tasks pending");
            }
        }
    }

    /** The scenario on the real {@link MockTimer}. */
    public static class Real extends Scenario {
        public Real() {
            this(new MockTimer());
        }

        private Real(MockTimer timer) {
            super(timer, () -> timer.advance(1));
        }
    }

    /** The scenario on the broken copy. */
    public static class Broken extends Scenario {
        public Broken() {
            this(new BrokenMockTimer(BrokenMockTimer.Bug.RUNS_WITHOUT_CLAIM));
        }

        private Broken(BrokenMockTimer timer) {
            super(timer, () -> timer.advance(1));
        }
    }

    private static ModelCheckingOptions options2x3(Class<? extends Scenario> test) {
        return options(10, 500, 2, 3)
                // a cancel racing the advance that runs the task
                .addCustomScenario(scenario(test).first("add", 0).thread(0, "tick").thread(1, "cancel", 0).build());
    }

    @Test
    void aTaskRunsOnceOrIsCancelledNeverBoth() {
        options2x3(Real.class).check(Real.class);
    }

    @Test
    void aTimerThatRunsATaskWithoutClaimingItIsCaught() {
        assertCaught(options2x3(Broken.class), Broken.class);
    }
}
