package io.purgatory.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operation's built-in lock as a view of it as a {@code java.util.concurrent.locks.Lock} sees
 * it (purgatory-kafka's {@code ReentrantLock}): its hold count, whether it is held, and the
 * interruptible and timed takes, which no purgatory path uses.
 */
class OperationStateLockTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final OperationState op = new OperationState() { };
    private final ExecutorService other = Executors.newSingleThreadExecutor();
    private final ExecutorService waiting = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        other.shutdownNow();
        waiting.shutdownNow();
    }

    /** Holds the lock on the other thread until the returned latch is counted down. */
    private CountDownLatch holdOnOtherThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        other.submit(() -> {
            OperationStates.lock(op);
            held.countDown();
            try {
                release.await();
            } finally {
                OperationStates.unlock(op);
            }
            return null;
        });
        assertTrue(held.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        return release;
    }

    @Test
    void holdsCountPerThreadAndTheLastUnlockFreesIt() {
        assertFalse(OperationStates.isLocked(op));
        assertEquals(0, OperationStates.holdCount(op));

        OperationStates.lock(op);
        assertTrue(OperationStates.tryLock(op), "re-entrant");
        assertEquals(2, OperationStates.holdCount(op));
        assertTrue(OperationStates.isLocked(op));
        assertTrue(OperationStates.isHeldByCurrentThread(op));

        OperationStates.unlock(op);
        assertEquals(1, OperationStates.holdCount(op));
        assertTrue(OperationStates.isLocked(op));
        OperationStates.unlock(op);
        assertEquals(0, OperationStates.holdCount(op));
        assertFalse(OperationStates.isLocked(op));
        assertFalse(OperationStates.isHeldByCurrentThread(op));
        assertThrows(IllegalMonitorStateException.class, () -> OperationStates.unlock(op));
    }

    @Test
    void anotherThreadsHoldIsLockedButNotCountedHere() throws Exception {
        CountDownLatch release = holdOnOtherThread();

        assertTrue(OperationStates.isLocked(op));
        assertEquals(0, OperationStates.holdCount(op));
        assertFalse(OperationStates.isHeldByCurrentThread(op));
        assertFalse(OperationStates.tryLock(op));
        assertThrows(IllegalMonitorStateException.class, () -> OperationStates.unlock(op));

        release.countDown();
        await().atMost(WAIT).until(() -> !OperationStates.isLocked(op));
    }

    @Test
    void lockInterruptiblyTakesAFreeLockAndReEnters() throws Exception {
        assertTrue(OperationStates.lockInterruptibly(op, 0));
        assertTrue(OperationStates.lockInterruptibly(op, Long.MAX_VALUE));
        assertEquals(2, OperationStates.holdCount(op));
        OperationStates.unlock(op);
        OperationStates.unlock(op);
        assertFalse(OperationStates.isLocked(op));
    }

    @Test
    void lockInterruptiblyGivesUpWhenItsTimeRunsOut() throws Exception {
        CountDownLatch release = holdOnOtherThread();

        assertFalse(OperationStates.lockInterruptibly(op, 0), "no time at all");
        assertFalse(OperationStates.lockInterruptibly(op, TimeUnit.MILLISECONDS.toNanos(5)), "the holder keeps it");
        assertEquals(0, OperationStates.holdCount(op));

        release.countDown();
    }

    @Test
    void lockInterruptiblyThrowsForAnInterruptedThreadWithoutTakingTheLock() {
        Thread.currentThread().interrupt();

        assertThrows(InterruptedException.class, () -> OperationStates.lockInterruptibly(op, Long.MAX_VALUE));
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is consumed, as ReentrantLock's is");
        assertFalse(OperationStates.isLocked(op));
    }

    @Test
    void aWaitingLockInterruptiblyGetsTheLockWhenTheHolderReleasesIt() throws Exception {
        OperationStates.lock(op);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Integer> holds = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            try {
                assertTrue(OperationStates.lockInterruptibly(op, Long.MAX_VALUE));
                int count = OperationStates.holdCount(op);
                OperationStates.unlock(op);
                return count;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, waiting);
        await().atMost(WAIT).until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);
        assertFalse(holds.isDone(), "it waits while this thread holds the lock");

        OperationStates.unlock(op);

        assertEquals(1, holds.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        await().atMost(WAIT).until(() -> !OperationStates.isLocked(op));
    }

    @Test
    void aWaitingLockInterruptiblyThrowsWhenInterruptedAndTheHolderKeepsTheLock() throws Exception {
        OperationStates.lock(op);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Boolean> result = other.submit(() -> {
            waiter.set(Thread.currentThread());
            return OperationStates.lockInterruptibly(op, Long.MAX_VALUE);
        });
        await().atMost(WAIT).until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);

        waiter.get().interrupt();

        ExecutionException thrown = assertThrows(ExecutionException.class, () -> result.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(thrown.getCause() instanceof InterruptedException, thrown.toString());
        assertTrue(OperationStates.isHeldByCurrentThread(op));
        assertEquals(1, OperationStates.holdCount(op));
        OperationStates.unlock(op);
    }

    @Test
    void lockParkedWaitsForTheHolderAndKeepsAnInterruptForLater() throws Exception {
        CountDownLatch release = holdOnOtherThread();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Boolean> interruptKept = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            OperationStates.lockParked(op);
            boolean kept = Thread.interrupted();
            OperationStates.unlock(op);
            return kept;
        }, waiting);
        await().atMost(WAIT).until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.WAITING);

        waiter.get().interrupt(); // it keeps waiting: lock() is not interruptible
        await().atMost(WAIT).until(() -> waiter.get().getState() == Thread.State.WAITING || interruptKept.isDone());
        assertFalse(interruptKept.isDone(), "an interrupt does not end the wait");
        release.countDown();

        assertTrue(interruptKept.get(WAIT.toSeconds(), TimeUnit.SECONDS), "the interrupt is restored once it holds the lock");
        await().atMost(WAIT).until(() -> !OperationStates.isLocked(op));
    }

    /**
     * A holder that took the lock itself (the bridge, a hand-off's take) must call {@code retryIfPending}
     * after releasing it: a try that another thread skipped meanwhile then runs, once, on the holder's thread.
     */
    @Test
    void aTrySkippedWhileTheLockWasHeldRunsOnRetryIfPendingOnce() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        TryHook hook = state -> {
            tries.incrementAndGet();
            return true;
        };
        assertFalse(OperationStates.retryIfPending(op, hook), "nothing pending: no try");
        assertEquals(0, tries.get());

        OperationStates.lock(op);
        assertFalse(other.submit(() -> OperationStates.maybeTryComplete(op, hook)).get(WAIT.toSeconds(), TimeUnit.SECONDS),
                "skipped while held, not waited for");
        assertEquals(0, tries.get());
        OperationStates.unlock(op);

        assertTrue(OperationStates.retryIfPending(op, hook), "the skipped try, run here");
        assertEquals(1, tries.get());
        assertFalse(OperationStates.retryIfPending(op, hook), "run once");
        assertEquals(1, tries.get());
    }
}
