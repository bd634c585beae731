package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.OperationStates;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The lock built into {@link DelayedOperation}: re-entrant, exclusive, owner-checked, interrupt-preserving. */
class DelayedOperationLockTest {

    private final TestOperation op = new TestOperation(60_000);

    private static boolean onOtherThread(java.util.function.BooleanSupplier action) {
        return CompletableFuture.supplyAsync(action::getAsBoolean).join();
    }

    @Test
    void isReentrantForItsOwner() {
        OperationStates.lock(op);
        assertTrue(OperationStates.tryLock(op));
        OperationStates.lock(op);
        OperationStates.unlock(op);
        OperationStates.unlock(op);
        assertFalse(onOtherThread(() -> OperationStates.tryLock(op)), "still held once");
        OperationStates.unlock(op);
        assertTrue(onOtherThread(() -> {
            boolean taken = OperationStates.tryLock(op);
            OperationStates.unlock(op);
            return taken;
        }), "free after the last unlock");
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() {
        assertThrows(IllegalMonitorStateException.class, () -> OperationStates.unlock(op));
        OperationStates.lock(op);
        assertTrue(onOtherThread(() -> {
            try {
                OperationStates.unlock(op);
                return false;
            } catch (IllegalMonitorStateException expected) {
                return true;
            }
        }));
        OperationStates.unlock(op);
    }

    @Test
    void aWaiterGetsTheLockWhenTheOwnerReleasesItAndKeepsItsInterrupt() throws Exception {
        OperationStates.lock(op);
        AtomicBoolean acquired = new AtomicBoolean();
        AtomicBoolean interruptKept = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            OperationStates.lock(op);
            acquired.set(true);
            interruptKept.set(Thread.currentThread().isInterrupted());
            OperationStates.unlock(op);
        });
        waiter.start();
        waiting.await();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.WAITING);
        waiter.interrupt();
        assertFalse(acquired.get(), "an interrupt does not take the lock");

        OperationStates.unlock(op);
        waiter.join(10_000);
        assertTrue(acquired.get());
        assertTrue(interruptKept.get());
    }

    @Tag("stress")
    @Test
    void manyThreadsIncrementUnderTheLockWithoutLosingAnUpdate() throws Exception {
        int threads = 4;
        int rounds = 50_000;
        int[] counter = {0}; // guarded by op's lock
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            boolean useTryLock = t % 2 == 0;
            workers[t] = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    if (useTryLock) {
                        while (!OperationStates.tryLock(op)) {
                            Thread.onSpinWait();
                        }
                    } else {
                        OperationStates.lock(op);
                    }
                    counter[0]++;
                    OperationStates.unlock(op);
                }
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        OperationStates.lock(op);
        assertEquals(threads * rounds, counter[0]);
        OperationStates.unlock(op);
    }

    /**
     * A thread waiting for the lock parks until the holder's unlock wakes it, rather than polling
     * with timed parks (which showed up as expiry lateness when the timer's executor waited).
     */
    @Test
    void aWaiterParksUntilUnlockWakesIt() throws Exception {
        OperationStates.lock(op);
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            OperationStates.lock(op);
            acquired.set(true);
            OperationStates.unlock(op);
        }, "lock-waiter");
        waiter.start();

        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() ->
                waiter.getState() == Thread.State.WAITING && java.util.concurrent.locks.LockSupport.getBlocker(waiter) == op);
        assertFalse(acquired.get());
        OperationStates.unlock(op);

        waiter.join(30_000);
        assertTrue(acquired.get(), "the waiter took the lock once it was released");
    }
}
