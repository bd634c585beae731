package io.purgatory.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;
import org.apache.kafka.server.util.timer.MockTimer;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.TimerTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The module on Kafka's own paths, with Kafka's API only: faults, bad input, a foreign timer, memory
 * and what a broker shows. Kafka's own tests (run beside these) cover the ordinary paths.
 */
class KafkaPathsTest {

    private static final TopicPartitionOperationKey P0 = new TopicPartitionOperationKey("t", 0);
    private static final TopicPartitionOperationKey P1 = new TopicPartitionOperationKey("t", 1);
    private static final TopicPartitionOperationKey P2 = new TopicPartitionOperationKey("t", 2);

    private final List<DelayedOperationPurgatory<?>> opened = new ArrayList<>();

    @AfterEach
    void shutdown() throws Exception {
        for (DelayedOperationPurgatory<?> p : opened) {
            p.shutdown();
        }
    }

    private <T extends DelayedOperation> DelayedOperationPurgatory<T> purgatory(String name) {
        DelayedOperationPurgatory<T> p = new DelayedOperationPurgatory<>(name, 1);
        opened.add(p);
        return p;
    }

    /** An operation as Kafka's subclasses are: completes when its flag is set, counts its callbacks. */
    static class Op extends DelayedOperation {
        volatile boolean ready;
        volatile RuntimeException tryFails;
        volatile RuntimeException completeFails;
        private final AtomicInteger completions = new AtomicInteger();
        private final AtomicInteger expirations = new AtomicInteger();
        byte[] payload;

        Op(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            if (tryFails != null) {
                throw tryFails;
            }
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
            completions.incrementAndGet();
            if (completeFails != null) {
                throw completeFails;
            }
        }

        @Override
        public void onExpiration() {
            expirations.incrementAndGet();
        }
    }

    @Test
    void aTryCompleteThatThrowsReachesTheCallerAndTheOperationStillExpires() {
        DelayedOperationPurgatory<Op> p = purgatory("throwing-try");
        Op op = new Op(50);
        op.tryFails = new IllegalStateException("broken condition");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> p.tryCompleteElseWatch(op, List.of(P0)));
        assertEquals("broken condition", thrown.getMessage());
        await().atMost(Duration.ofSeconds(10)).until(() -> op.expirations.get() == 1);
        assertEquals(1, op.completions.get());
        assertTrue(op.isCompleted());
    }

    @Test
    void anOnCompleteThatThrowsLeavesTheOperationCompletedAndUnwatched() {
        DelayedOperationPurgatory<Op> p = purgatory("throwing-complete");
        Op op = new Op(100_000);
        op.completeFails = new IllegalStateException("response lost");
        assertFalse(p.tryCompleteElseWatch(op, List.of(P0, P1)));
        op.ready = true;
        assertThrows(IllegalStateException.class, () -> p.checkAndComplete(P0));
        assertTrue(op.isCompleted());
        assertEquals(1, op.completions.get());
        assertEquals(0, p.numDelayed());
        assertEquals(0, p.checkAndComplete(P1), "a completed operation is not completed again");
    }

    /**
     * The operation's state has one lock, Kafka's {@code lock}: a {@code checkAndComplete} that finds
     * it held while {@code tryCompleteElseWatch} runs the try after watching cannot take it, and asks
     * for a retry; the offering thread honours it after releasing {@code lock}, so the wake-up is not
     * lost and the operation completes once.
     */
    @Test
    void aCheckThatFindsKafkasLockHeldIsRetriedByItsHolder() throws Exception {
        DelayedOperationPurgatory<HeldOp> p = purgatory("one-lock");
        HeldOp op = new HeldOp();
        AtomicInteger offered = new AtomicInteger(-1);
        Thread offering = new Thread(() -> offered.set(p.tryCompleteElseWatch(op, List.of(P0)) ? 1 : 0));
        offering.start();
        assertTrue(op.inSecondTry.await(10, TimeUnit.SECONDS), "the offering thread reached its try after watching");
        op.ready = true;
        assertEquals(0, p.checkAndComplete(P0), "the check cannot take the lock the offering thread holds");
        assertFalse(op.isCompleted());
        op.release.countDown();
        offering.join(10_000);
        assertFalse(offering.isAlive());
        assertTrue(op.isCompleted(), "the holder retried after releasing lock");
        assertEquals(1, offered.get());
        assertEquals(1, op.completions.get());
        assertTrue(op.alwaysUnderLock, "tryComplete ran with lock held, every time");
        assertEquals(0, p.numDelayed());
    }

    /** Its second try (the one after watching) reads the flag, then waits until released, holding the lock. */
    static final class HeldOp extends DelayedOperation {
        private final CountDownLatch inSecondTry = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final AtomicInteger tries = new AtomicInteger();
        private final AtomicInteger completions = new AtomicInteger();
        volatile boolean ready;
        volatile boolean alwaysUnderLock = true;

        HeldOp() {
            super(100_000);
        }

        /** Kafka's {@code lock} is a {@code Lock} on 4.0 and a {@code ReentrantLock} later; the module's is a ReentrantLock on every line. */
        private static boolean heldByThisThread(Object lock) {
            return lock instanceof java.util.concurrent.locks.ReentrantLock held && held.isHeldByCurrentThread();
        }

        @Override
        public boolean tryComplete() {
            alwaysUnderLock &= heldByThisThread(lock);
            boolean now = ready;
            if (tries.incrementAndGet() == 2) {
                inSecondTry.countDown();
                try {
                    if (!release.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return now && forceComplete();
        }

        @Override
        public void onComplete() {
            completions.incrementAndGet();
        }

        @Override
        public void onExpiration() {
        }
    }

    @Test
    void anOperationOfferedTwiceCompletesOnce() {
        DelayedOperationPurgatory<Op> p = purgatory("twice");
        Op op = new Op(100_000);
        assertFalse(p.tryCompleteElseWatch(op, List.of(P0)));
        assertThrows(IllegalStateException.class, () -> p.tryCompleteElseWatch(op, List.of(P1)));
        op.ready = true;
        assertEquals(1, p.checkAndComplete(P0));
        assertEquals(0, p.checkAndComplete(P1));
        assertEquals(1, op.completions.get());
        assertEquals(0, p.numDelayed());
    }

    @Test
    void anEmptyKeyListIsRefusedAsKafkaDoes() {
        DelayedOperationPurgatory<Op> p = purgatory("no-keys");
        Op op = new Op(100_000);
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> p.tryCompleteElseWatch(op, List.of()));
        assertTrue(thrown.getMessage().contains("no-keys"), thrown.getMessage());
        assertEquals(0, p.numDelayed());
        assertEquals(0, p.watched());
        assertFalse(op.isCompleted());
    }

    @Test
    void shutdownWithAHundredThousandParkedReturnsAndRunsNoCallbackAsKafka() throws Exception {
        DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("parked", 1);
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            Op op = new Op(600_000);
            ops.add(op);
            p.tryCompleteElseWatch(op, List.of(new TopicPartitionOperationKey("t", i % 100)));
        }
        assertEquals(100_000, p.numDelayed());
        p.shutdown();
        assertEquals(0, p.numDelayed());
        assertEquals(0, ops.stream().mapToInt(op -> op.completions.get() + op.expirations.get()).sum());
        assertTrue(ops.stream().noneMatch(Op::isCompleted), "Kafka leaves parked operations uncompleted at shutdown");
    }

    @Test
    void cancelForKeyHandsBackUncompletedOperationsAndLeavesNothingWatchedWithoutExpiry() {
        DelayedOperationPurgatory<Op> p = purgatory("cancel");
        Op both = new Op(100_000);
        Op other = new Op(100_000);
        p.tryCompleteElseWatch(both, List.of(P0, P1));
        p.tryCompleteElseWatch(other, List.of(P1));
        List<Op> handedBack = p.cancelForKey(P0);
        assertEquals(List.of(both), handedBack);
        assertFalse(both.isCompleted());
        assertEquals(0, both.completions.get());
        assertEquals(1, p.numDelayed());
        other.ready = true;
        both.ready = true;
        assertEquals(1, p.checkAndComplete(P1), "the handed-back operation is off its other keys too");
        assertEquals(0, both.completions.get());
    }

    @Test
    void aTimerTaskCancelledWhileItRunsRunsOnceAndLeavesTheTimer() throws Exception {
        try (SystemTimer timer = new SystemTimer("cancel-while-running")) {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch cancelled = new CountDownLatch(1);
            AtomicInteger runs = new AtomicInteger();
            TimerTask task = new TimerTask(0) {
                @Override
                public void run() {
                    runs.incrementAndGet();
                    running.countDown();
                    try {
                        cancelled.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            timer.add(task);
            running.await();
            task.cancel();
            cancelled.countDown();
            assertTrue(task.isCancelled());
            await().atMost(Duration.ofSeconds(10)).until(() -> timer.size() == 0);
            assertEquals(1, runs.get());
        }
    }

    @Test
    void onKafkasMockTimerTheTimerExpiresAndACompletionTakesTheTaskOffIt() throws Exception {
        MockTimer timer = new MockTimer();
        DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("mock-timer", timer, 1, 1000, false, true);
        opened.add(p);
        Op expiring = new Op(100);
        Op completing = new Op(100);
        p.tryCompleteElseWatch(expiring, List.of(P0));
        p.tryCompleteElseWatch(completing, List.of(P1));
        assertEquals(2, timer.size());
        completing.ready = true;
        assertEquals(1, p.checkAndComplete(P1));
        assertTrue(completing.isCancelled(), "completion cancels the task on the foreign timer");
        timer.advanceClock(101);
        assertEquals(1, expiring.expirations.get());
        assertEquals(1, expiring.completions.get());
        assertEquals(0, completing.expirations.get());
        assertEquals(1, completing.completions.get());
    }

    @Test
    void aCompletedOperationIsUnreachableWhileOtherKeysStillWatchIt() {
        DelayedOperationPurgatory<Op> p = new DelayedOperationPurgatory<>("retention", 1, 1000);
        opened.add(p);
        Op op = new Op(600_000);
        op.payload = new byte[1 << 20];
        p.tryCompleteElseWatch(op, List.of(P0, P1, P2));
        WeakReference<Op> ref = new WeakReference<>(op);
        op.ready = true;
        assertEquals(1, p.checkAndComplete(P0));
        op = null;
        assertEquals(2, p.watched(), "P1's and P2's entries are still linked (no purge has run)");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return ref.get() == null;
        });
        assertNull(ref.get());
    }

    @Test
    void ourMBeanSitsBesideKafkasGauges() throws Exception {
        DelayedOperationPurgatory<Op> p = purgatory("Shown");
        p.tryCompleteElseWatch(new Op(100_000), List.of(P0));
        ObjectName ours = new ObjectName("io.purgatory:type=DelayedOperationPurgatory,name=" + ObjectName.quote("Shown-broker1"));
        assertEquals(1L, ManagementFactory.getPlatformMBeanServer().getAttribute(ours, "Delayed"));
        List<String> kafkas = KafkaYammerMetrics.defaultRegistry().allMetrics().keySet().stream()
                .filter(n -> "DelayedOperationPurgatory".equals(n.getType()) && n.getScope() != null && n.getScope().contains("Shown"))
                .map(n -> n.getName()).sorted().toList();
        assertEquals(List.of("NumDelayedOperations", "PurgatorySize"), kafkas);
    }

    @Test
    void twoPurgatoriesOfOneNameBothShowTheirMBean() throws Exception {
        purgatory("Twin");
        purgatory("Twin"); // a combined broker and controller opens AlterAcls twice
        for (String name : List.of("Twin-broker1", "Twin-broker1-2")) {
            ObjectName ours = new ObjectName("io.purgatory:type=DelayedOperationPurgatory,name=" + ObjectName.quote(name));
            assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(ours), name);
        }
    }
}
