package org.apache.kafka.server.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@code DelayedOperation.lock} in the module: a {@link ReentrantLock} that is a view of the
 * operation's own lock, the one the purgatory takes. Kafka's own DelayedOperationTest checks it is
 * held inside {@code tryComplete}; this checks it as a lock, and that it and the purgatory's are one.
 */
class KafkaOperationLockTest {

    private static final TopicPartitionOperationKey KEY = new TopicPartitionOperationKey("t", 0);

    private final DelayedOperationPurgatory<Op> purgatory = new DelayedOperationPurgatory<>("lock-test", 1);

    @AfterEach
    void shutdown() throws Exception {
        purgatory.shutdown();
    }

    static final class Op extends DelayedOperation {
        volatile boolean ready;

        Op() {
            super(60_000);
        }

        @Override
        public boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }

    @Test
    void overridesEveryMethodOfReentrantLockThatItMay() {
        Class<?> view = new Op().lock.getClass();
        for (Method method : ReentrantLock.class.getDeclaredMethods()) {
            int m = method.getModifiers();
            if (Modifier.isStatic(m) || Modifier.isFinal(m) || Modifier.isPrivate(m) || method.isSynthetic()) {
                continue;
            }
            assertTrue(Arrays.stream(view.getDeclaredMethods()).anyMatch(o -> o.getName().equals(method.getName())
                            && Arrays.equals(o.getParameterTypes(), method.getParameterTypes())),
                    "the lock view must override ReentrantLock." + method.getName() + ": it has no synchronizer to fall back on");
        }
    }

    @Test
    void theFinalMethodsOfReentrantLockAreTheThreeQueueProbesAndIsFair() {
        Set<String> finals = new TreeSet<>();
        for (Method method : ReentrantLock.class.getDeclaredMethods()) {
            int m = method.getModifiers();
            if (!Modifier.isStatic(m) && Modifier.isFinal(m) && !Modifier.isPrivate(m)) {
                finals.add(method.getName());
            }
        }
        assertEquals(new TreeSet<>(List.of("getQueueLength", "hasQueuedThread", "hasQueuedThreads", "isFair")), finals,
                "a JDK that makes another ReentrantLock method final makes it reach the missing synchronizer: document it");
        assertFalse(new Op().lock.isFair(), "Kafka's lock is not fair; isFair reads no state");
    }

    @Test
    @SuppressWarnings("LockNotBeforeTry") // the holds are taken and released step by step, to count them
    void isReentrantAndCountsItsHolds() {
        ReentrantLock lock = new Op().lock;
        assertFalse(lock.isLocked());
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertTrue(lock.isLocked());
        lock.unlock();
        assertFalse(lock.isLocked());
        assertEquals(0, lock.getHoldCount());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }

    @Test
    @SuppressWarnings("LockNotBeforeTry") // the test thread releases it in the middle, to let the waiter in
    void excludesOtherThreadsUntilReleased() throws Exception {
        ReentrantLock lock = new Op().lock;
        lock.lock();
        try {
            assertFalse(CompletableFuture.supplyAsync(lock::tryLock).get(), "another thread cannot take it");
            assertFalse(CompletableFuture.supplyAsync(lock::isHeldByCurrentThread).get());
            assertThrows(IllegalMonitorStateException.class, () -> unlockOn(lock));
            assertFalse(CompletableFuture.supplyAsync(() -> timedTry(lock)).get(), "a timed try gives up while it is held");
            AtomicBoolean acquired = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                lock.lock();
                acquired.set(true);
                lock.unlock();
            });
            waiter.start();
            assertFalse(acquired.get());
            lock.unlock();
            await().atMost(Duration.ofSeconds(10)).untilTrue(acquired);
            waiter.join();
        } finally {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
        }
    }

    @Test
    void anInterruptedWaitThrowsAndLeavesTheLockFree() throws Exception {
        ReentrantLock lock = new Op().lock;
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, lock::lockInterruptibly);
        assertFalse(Thread.interrupted(), "the interrupt is consumed, as ReentrantLock does");
        assertFalse(lock.isLocked());
        assertTrue(lock.tryLock(0, TimeUnit.MILLISECONDS));
        lock.unlock();
    }

    @Test
    void hasNoConditions() {
        ReentrantLock lock = new Op().lock;
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertThrows(IllegalArgumentException.class, () -> lock.hasWaiters(new ReentrantLock().newCondition()));
        assertThrows(NullPointerException.class, () -> lock.getWaitQueueLength(null));
    }

    @Test
    void isTheLockThePurgatoryTakes() throws Exception {
        Op op = new Op();
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of(KEY)));
        op.ready = true;
        java.util.concurrent.ExecutorService holder = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            holder.submit(op.lock::lock).get();
            assertEquals(0, purgatory.checkAndComplete(KEY), "the purgatory cannot try an operation whose lock another thread holds");
            assertTrue(op.lock.isLocked());
            assertTrue(op.lock.toString().endsWith("[Locked]"));
            holder.submit(op.lock::unlock).get();
        } finally {
            holder.shutdown();
        }
        assertEquals(1, purgatory.checkAndComplete(KEY));
        assertTrue(op.isCompleted());
        assertTrue(op.lock.toString().endsWith("[Unlocked]"));
    }

    @Test
    void isHeldWhileThePurgatoryTries() {
        AtomicBoolean heldInTry = new AtomicBoolean();
        DelayedOperation op = new DelayedOperation(60_000) {
            @Override
            public boolean tryComplete() {
                heldInTry.set(lock.isHeldByCurrentThread() && lock.getHoldCount() == 1
                        && lock.toString().endsWith("[Locked by thread " + Thread.currentThread().getName() + "]"));
                return false;
            }

            @Override
            public void onComplete() {
            }

            @Override
            public void onExpiration() {
            }
        };
        DelayedOperationPurgatory<DelayedOperation> own = new DelayedOperationPurgatory<>("lock-held", 1);
        try {
            assertFalse(own.tryCompleteElseWatch(op, List.of(KEY)));
            assertTrue(heldInTry.get(), "lock is held, once, by the trying thread inside tryComplete");
            assertFalse(op.lock.isLocked());
        } finally {
            try {
                own.shutdown();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static boolean timedTry(ReentrantLock lock) {
        try {
            return lock.tryLock(1, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void unlockOn(ReentrantLock lock) throws Exception {
        try {
            CompletableFuture.runAsync(lock::unlock).get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }
}
