package io.purgatory;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.parksInEarnest;
import static io.purgatory.timer.ModelChecking.scenario;

import io.purgatory.internal.OperationStates;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The lock built into {@link DelayedOperation}, model-checked: two threads take it in every way it
 * can be taken ({@code tryLock}, {@code lock}, the parking slow path, re-entrantly) and each checks
 * that it is alone inside. Lincheck explores the interleavings of each scenario and reports an
 * overlap (an exception in the results), a thread left parked (a deadlock) or a livelock.
 *
 * <p>Three threads reach the path of a third waiter, which finds the {@code waiter} slot taken and
 * polls with timed parks: the slot's park is marked silent (it parks in earnest, see
 * {@link io.purgatory.timer.ModelChecking}) and the poll's is not, so the model checker lets the
 * poll time out at any point, as the real one does.
 *
 * <p>The same scenarios run against {@link BrokenOperationLock}: with
 * {@link BrokenOperationLock.Bug#READS_WAITER_BEFORE_FREEING} the checker must find the wake-up the
 * reordered Dekker pair loses (two threads), with {@link BrokenOperationLock.Bug#POLLER_CLEARS_THE_SLOT}
 * the slot's thread that a poller forgets (three threads).
 */
@Tag("lincheck")
class OperationLockLincheckTest {

    /** The three ways to take the lock, and its release. */
    interface Lock {
        boolean tryLock();

        /** Spins, yields, then parks. */
        void lock();

        /** Parks at once: the slow path of {@link #lock()}, which the model checker cannot reach through the spins. */
        void lockParked();

        void unlock();
    }

    /** The operations of a scenario, over some {@link Lock}; Lincheck makes one per interleaving. */
    public abstract static class Scenario {
        private final Lock lock;
        /** The thread inside the lock; a plain field, so that Lincheck interleaves its reads and writes. */
        private Thread holder;

        Scenario(Lock lock) {
            this.lock = lock;
        }

        @Operation
        public void lockUnlock() {
            lock.lock();
            inside();
            lock.unlock();
        }

        @Operation
        public void lockParkedUnlock() {
            lock.lockParked();
            inside();
            lock.unlock();
        }

        @Operation
        public void tryLockUnlock() {
            if (lock.tryLock()) {
                inside();
                lock.unlock();
            }
        }

        /** Takes the lock twice over, and is still alone inside after releasing one hold. */
        @Operation
        public void reenter() {
            lock.lockParked();
            enter();
            if (!lock.tryLock()) {
                throw new AssertionError("the owner could not take its lock again");
            }
            lock.unlock();
            exit();
            inside();
            lock.unlock();
        }

        private void inside() {
            enter();
            exit();
        }

        private void enter() {
            if (holder != null) {
                throw new AssertionError("two threads hold the lock: " + holder + " and " + Thread.currentThread());
            }
            holder = Thread.currentThread();
        }

        private void exit() {
            if (holder != Thread.currentThread()) {
                throw new AssertionError("another thread entered the lock: " + holder);
            }
            holder = null;
        }
    }

    /** The scenario over the lock of a {@link DelayedOperation}. */
    public static class Real extends Scenario {
        public Real() {
            super(of(new TestOperation(60_000)));
        }

        private static Lock of(DelayedOperation op) {
            return new Lock() {
                @Override
                public boolean tryLock() {
                    return OperationStates.tryLock(op);
                }

                @Override
                public void lock() {
                    OperationStates.lock(op);
                }

                @Override
                public void lockParked() {
                    OperationStates.lockParked(op);
                }

                @Override
                public void unlock() {
                    OperationStates.unlock(op);
                }
            };
        }
    }

    /** The scenario over the broken copy whose {@code unlock} reads {@code waiter} before it frees {@code owner}. */
    public static class DekkerReordered extends Scenario {
        public DekkerReordered() {
            super(new BrokenOperationLock(BrokenOperationLock.Bug.READS_WAITER_BEFORE_FREEING));
        }
    }

    /** The scenario over the broken copy whose third waiter clears the slot of the second. */
    public static class PollerClearsTheSlot extends Scenario {
        public PollerClearsTheSlot() {
            super(new BrokenOperationLock(BrokenOperationLock.Bug.POLLER_CLEARS_THE_SLOT));
        }
    }

    private static ModelCheckingOptions parkingSilently(ModelCheckingOptions options) {
        return options
                .addGuarantee(parksInEarnest(DelayedOperation.class, "parkForUnlock"))
                .addGuarantee(parksInEarnest(BrokenOperationLock.class, "parkForUnlock"));
    }

    private static ModelCheckingOptions options2x3() {
        return parkingSilently(options(15, 500, 2, 3));
    }

    /** Three threads, and a scenario where all three wait: one holds the lock, one parks in the slot, one polls. */
    private static ModelCheckingOptions options3x2(Class<? extends Scenario> test) {
        return parkingSilently(options(10, 500, 3, 2))
                .addCustomScenario(scenario(test).thread(0, "lockParkedUnlock").thread(1, "lockParkedUnlock")
                        .thread(2, "lockParkedUnlock").build());
    }

    @Test
    void theLockExcludesAndNeverLosesAWakeUp() {
        options2x3().check(Real.class);
    }

    /**
     * The same scenarios on real threads, real parks and the real memory model (the model checker
     * assumes sequential consistency, so it takes the volatiles of the Dekker pair on trust).
     */
    @Test
    void theLockHoldsOnRealThreadsToo() {
        new StressOptions().iterations(5).invocationsPerIteration(500).threads(2).actorsPerThread(3).check(Real.class);
    }

    @Test
    void aThirdWaiterPollsUntilItHasTheLock() {
        options3x2(Real.class).check(Real.class);
    }

    @Test
    void aLockThatReadsTheWaiterBeforeFreeingTheOwnerIsCaught() {
        assertCaught(options2x3(), DekkerReordered.class);
    }

    @Test
    void aPollerThatClearsTheSlotOfTheParkedWaiterIsCaught() {
        assertCaught(options3x2(PollerClearsTheSlot.class), PollerClearsTheSlot.class);
    }
}
