package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        op.lock();
        assertTrue(op.tryLock());
        op.lock();
        op.unlock();
        op.unlock();
        assertFalse(onOtherThread(op::tryLock), "still held once");
        op.unlock();
        assertTrue(onOtherThread(() -> {
            boolean taken = op.tryLock();
            op.unlock();
            return taken;
        }), "free after the last unlock");
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() {
        assertThrows(IllegalMonitorStateException.class, op::unlock);
        op.lock();
        assertTrue(onOtherThread(() -> {
            try {
                op.unlock();
                return false;
            } catch (IllegalMonitorStateException expected) {
                return true;
            }
        }));
        op.unlock();
    }

    @Test
    void aWaiterGetsTheLockWhenTheOwnerReleasesItAndKeepsItsInterrupt() throws Exception {
        op.lock();
        AtomicBoolean acquired = new AtomicBoolean();
        AtomicBoolean interruptKept = new AtomicBoolean();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            waiting.countDown();
            op.lock();
            acquired.set(true);
            interruptKept.set(Thread.currentThread().isInterrupted());
            op.unlock();
        });
        waiter.start();
        waiting.await();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.WAITING);
        waiter.interrupt();
        assertFalse(acquired.get(), "an interrupt does not take the lock");

        op.unlock();
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
                        while (!op.tryLock()) {
                            Thread.onSpinWait();
                        }
                    } else {
                        op.lock();
                    }
                    counter[0]++;
                    op.unlock();
                }
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        op.lock();
        assertEquals(threads * rounds, counter[0]);
        op.unlock();
    }

    /**
     * A thread waiting for the lock parks until the holder's unlock wakes it, rather than polling
     * with timed parks (which showed up as expiry lateness when the timer's executor waited).
     */
    @Test
    void aWaiterParksUntilUnlockWakesIt() throws Exception {
        op.lock();
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            op.lock();
            acquired.set(true);
            op.unlock();
        }, "lock-waiter");
        waiter.start();

        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() ->
                waiter.getState() == Thread.State.WAITING && java.util.concurrent.locks.LockSupport.getBlocker(waiter) == op);
        assertFalse(acquired.get());
        op.unlock();

        waiter.join(30_000);
        assertTrue(acquired.get(), "the waiter took the lock once it was released");
    }
}
