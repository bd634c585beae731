package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The purgatory's contract, after Kafka's {@code DelayedOperationTest}: completion on the first try,
 * by {@code checkAndComplete}, by {@code forceComplete} and by expiry, each exactly once; purging;
 * cancellation; shutdown; metrics; and the locking promises (KAFKA-19312, KAFKA-8334).
 *
 * <p>Time is a {@link MockTimer} and purgatories run without a reaper thread (purges happen on the
 * completing thread), so every outcome is known when a call returns; the few tests about the real
 * timer, the reaper or other threads wait for outcomes with Awaitility, latches or futures.
 */
class DelayedOperationPurgatoryTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final long DELAY_MS = 100;

    private final MockTimer timer = new MockTimer();
    private String testName;
    private ExecutorService executor;

    @BeforeEach
    void setUp(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        executor = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS), "test threads did not stop");
        timer.close();
    }

    /** A unique name: the JMX MBean is registered under it. */
    private String uniqueName() {
        return getClass().getSimpleName() + "-" + testName + "-" + PURGATORIES.incrementAndGet();
    }

    private DelayedOperationPurgatory<TestOperation> mockTimePurgatory(int purgeInterval) {
        return DelayedOperationPurgatory.<TestOperation>builder(uniqueName())
                .timer(timer)
                .reaperEnabled(false)
                .purgeInterval(purgeInterval)
                .build();
    }

    private DelayedOperationPurgatory<TestOperation> mockTimePurgatory() {
        return mockTimePurgatory(1000);
    }

    // --- completion ---

    @Test
    void operationWhoseConditionHoldsCompletesOnFirstTryAndIsNeverWatched() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            op.setReady(true);

            assertTrue(purgatory.tryCompleteElseWatch(op, List.of("a", "b")));

            assertTrue(op.isCompleted());
            assertEquals(1, op.completions.get());
            assertEquals(0, op.expirations.get());
            assertEquals(1, op.tries.get(), "a completed operation is not tried again");
            assertEquals(0, purgatory.watched());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size(), "a completed operation is never added to the timer");
            assertEquals(1, purgatory.metrics().completed());
        }
    }

    @Test
    void checkAndCompleteCompletesOperationOnceItsConditionHolds() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);

            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")));
            assertEquals(1, purgatory.numDelayed());
            assertEquals(1, timer.size());
            assertEquals(0, purgatory.checkAndComplete("a"), "condition does not hold yet");
            assertFalse(op.isCompleted());

            op.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("a"));

            assertTrue(op.isCompleted());
            assertEquals(1, op.completions.get());
            assertEquals(0, op.expirations.get());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size(), "completion cancels the expiry");
            assertEquals(0, purgatory.checkAndComplete("a"), "nothing left to complete");
            assertEquals(1, op.completions.get());
        }
    }

    @Test
    void checkAndCompleteOnUnwatchedKeyCompletesNothing() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a"));
            op.setReady(true);

            assertEquals(0, purgatory.checkAndComplete("nobody-watches-this"));

            assertFalse(op.isCompleted());
            assertEquals(1, purgatory.numDelayed());
        }
    }

    @Test
    void conditionThatChangesWhileOperationIsBeingWatchedCompletesItInTheSameCall() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            // the condition becomes true right after the first try read it, as if another thread
            // had made progress before the operation was on the watch list
            op.duringTry = () -> op.setReady(true);

            assertTrue(purgatory.tryCompleteElseWatch(op, List.of("a")));

            assertEquals(2, op.tries.get());
            assertEquals(1, op.completions.get());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size(), "a completed operation is never added to the timer");
        }
    }

    @Test
    void operationExpiresAfterItsDelayAndNotBefore() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")));

            timer.advance(DELAY_MS - 1);
            assertFalse(op.isCompleted(), "expired before its delay passed");
            assertEquals(List.of(), op.events);
            assertEquals(1, purgatory.numDelayed());

            timer.advance(1);
            assertTrue(op.isCompleted());
            assertEquals(List.of("onComplete", "onExpiration"), op.events);
            assertEquals(1, op.completionsSeenByExpiration, "onComplete ran before onExpiration");
            assertEquals(0, purgatory.numDelayed());

            timer.advance(10 * DELAY_MS);
            op.setReady(true);
            assertEquals(0, purgatory.checkAndComplete("a"));
            assertEquals(List.of("onComplete", "onExpiration"), op.events, "expired exactly once");
            assertEquals(1, purgatory.metrics().expired());
            assertEquals(0, purgatory.metrics().completed());
        }
    }

    @Test
    void operationWatchingSeveralKeysCompletesOnceWhicheverKeyFires() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a", "b", "c"));
            op.setReady(true);

            assertEquals(1, purgatory.checkAndComplete("b"));
            assertEquals(0, purgatory.checkAndComplete("a"));
            assertEquals(0, purgatory.checkAndComplete("c"));
            assertEquals(0, purgatory.checkAndComplete("b"));
            timer.advance(2 * DELAY_MS);

            assertEquals(List.of("onComplete"), op.events);
            assertEquals(0, purgatory.numDelayed());
            assertEquals(1, purgatory.metrics().completed());
            assertEquals(0, purgatory.metrics().expired());
        }
    }

    @Test
    void forceCompleteFromOutsideWinsOnceAndCancelsTheExpiry() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a"));
            assertEquals(1, timer.size());

            assertTrue(op.forceComplete());
            assertFalse(op.forceComplete(), "the second forceComplete must lose");

            assertEquals(0, timer.size(), "the timer task was not cancelled");
            assertEquals(Completion.COMPLETED, op.completion());
            assertFalse(op.isCancelled(), "forced, not cancelled");
            assertEquals(0, purgatory.numDelayed());
            timer.advance(2 * DELAY_MS);
            op.setReady(true);
            assertEquals(0, purgatory.checkAndComplete("a"));
            assertEquals(List.of("onComplete"), op.events);
            assertEquals(1, purgatory.metrics().completed());
        }
    }

    @Test
    void operationWithNoWatchKeysStillExpires() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);

            assertFalse(purgatory.tryCompleteElseWatch(op, List.of()));
            assertEquals(1, purgatory.numDelayed());
            timer.advance(DELAY_MS);

            assertEquals(List.of("onComplete", "onExpiration"), op.events);
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void operationWithNoWatchKeysIsAnsweredByClose() {
        TestOperation op = new TestOperation(DELAY_MS);
        try (var purgatory = mockTimePurgatory()) {
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of()));
            assertFalse(op.isCompleted());
        }
        assertEquals(List.of("onComplete", "onExpiration"), op.events);
        assertEquals(0, timer.size());
    }

    // --- misuse ---

    @Test
    void offeringTheSameOperationTwiceThrows() {
        try (var purgatory = mockTimePurgatory(); var other = mockTimePurgatory()) {
            TestOperation pending = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(pending, List.of("a"));

            assertThrows(IllegalStateException.class, () -> purgatory.tryCompleteElseWatch(pending, List.of("a")));
            assertThrows(IllegalStateException.class, () -> purgatory.tryCompleteElseWatch(pending, List.of("b")));
            assertThrows(IllegalStateException.class, () -> other.tryCompleteElseWatch(pending, List.of("a")));
            assertEquals(1, purgatory.numDelayed(), "a refused offer must not disturb the pending one");
            assertEquals(1, purgatory.watched());
            assertEquals(1, timer.size());
            assertEquals(0, other.watched());

            TestOperation done = new TestOperation(DELAY_MS);
            done.setReady(true);
            assertTrue(purgatory.tryCompleteElseWatch(done, List.of("a")));
            assertThrows(IllegalStateException.class, () -> purgatory.tryCompleteElseWatch(done, List.of("a")));
            assertEquals(1, done.completions.get());
        }
    }

    @Test
    void nullWatchKeyIsRejectedAndLeavesNothingBehind() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);

            assertThrows(NullPointerException.class, () -> purgatory.tryCompleteElseWatch(op, Arrays.asList("a", null)));
            assertThrows(NullPointerException.class, () -> purgatory.checkAndComplete(null));
            assertThrows(NullPointerException.class, () -> purgatory.cancelForKey(null, "reason"));

            assertEquals(0, purgatory.watched());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size());
            assertFalse(op.isCompleted());
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a")), "a refused offer does not use the operation up");
            assertEquals(1, purgatory.watched());
        }
    }

    // --- watched and purging ---

    @Test
    void watchedCountsOneWatchPerKey() {
        try (var purgatory = mockTimePurgatory()) {
            purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), List.of("a", "b", "c"));
            purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), List.of("a", "d"));

            assertEquals(5, purgatory.watched());
            assertEquals(2, purgatory.numDelayed());
            assertEquals(5, purgatory.metrics().watched());
            assertEquals(2, purgatory.metrics().delayed());
        }
    }

    @Test
    void purgeKeepsWatchedBoundedWhenOperationsCompleteThroughOtherKeys() {
        int purgeInterval = 10;
        int count = 500;
        try (var purgatory = mockTimePurgatory(purgeInterval)) {
            List<TestOperation> ops = offerWithUniqueAndSharedKey(purgatory, count);
            assertEquals(2 * count, purgatory.watched());

            int live = count;
            for (int i = 0; i < count; i++) {
                ops.get(i).setReady(true);
                assertEquals(1, purgatory.checkAndComplete("unique-" + i));
                live--;
                int bound = 2 * live + purgeInterval + 2;
                assertTrue(purgatory.watched() <= bound,
                        "after " + (i + 1) + " completions watched() is " + purgatory.watched() + " > " + bound);
            }

            assertTrue(purgatory.metrics().purged() > 0, "no purge ran");
            assertEquals(0, purgatory.numDelayed());
            assertEquals(count, purgatory.metrics().completed());
        }
    }

    @Test
    void purgeOnReaperThreadKeepsWatchedBounded() {
        int purgeInterval = 10;
        int count = 1000;
        int batch = 100;
        try (var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName())
                .timer(timer).purgeInterval(purgeInterval).build()) { // reaper enabled
            List<TestOperation> ops = offerWithUniqueAndSharedKey(purgatory, count);

            for (int from = 0; from < count; from += batch) {
                for (int i = from; i < from + batch; i++) {
                    ops.get(i).setReady(true);
                    assertEquals(1, purgatory.checkAndComplete("unique-" + i));
                }
                int bound = 2 * (count - from - batch) + purgeInterval + 2;
                awaitQuickly().untilAsserted(() -> assertTrue(purgatory.watched() <= bound,
                        "watched() is " + purgatory.watched() + " > " + bound));
            }

            assertTrue(purgatory.metrics().purged() > 0, "no purge ran");
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.checkAndComplete("shared"), "the shared list is still walkable");
        }
    }

    private static List<TestOperation> offerWithUniqueAndSharedKey(DelayedOperationPurgatory<TestOperation> purgatory,
                                                                   int count) {
        List<TestOperation> ops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            TestOperation op = new TestOperation(DELAY_MS);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("unique-" + i, "shared")));
            ops.add(op);
        }
        return ops;
    }

    @Test
    void completedOperationDoesNotKeepItsPayloadReachableWithMockTimer() {
        try (var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName())
                .timer(timer).reaperEnabled(false).purgeInterval(Integer.MAX_VALUE).build()) {
            assertPayloadFreedWithoutPurge(purgatory, () -> { });
        }
    }

    @Test
    void completedOperationDoesNotKeepItsPayloadReachableWithSystemTimer() {
        String name = uniqueName();
        try (var systemTimer = new SystemTimer(name + "-timer"); // the default wheel: 1 ms tick, 1,024 buckets
             var purgatory = DelayedOperationPurgatory.<TestOperation>builder(name)
                     .timer(systemTimer).purgeInterval(Integer.MAX_VALUE).build()) {
            // complete the operation only once it sits in the wheel, so that its cancellation must
            // unlink it from a bucket that comes due only in a minute
            assertPayloadFreedWithoutPurge(purgatory, () -> awaitAddsTaken(systemTimer));
        }
    }

    /** Returns once the timer has taken every task added before this call into its wheel. */
    private static void awaitAddsTaken(Timer systemTimer) {
        CountDownLatch ran = new CountDownLatch(1);
        systemTimer.add(new TimerTask(1) {
            @Override
            public void run() {
                ran.countDown();
            }
        });
        awaitLatch(ran);
    }

    /** KAFKA-19389 / KAFKA-19763: completed operations lingering in other keys' lists held their payloads. */
    private static void assertPayloadFreedWithoutPurge(DelayedOperationPurgatory<TestOperation> purgatory,
                                                       Runnable beforeCompleting) {
        WeakReference<Object> payload = offerAndCompleteThroughOneKey(purgatory, beforeCompleting);

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return payload.get() == null;
        });
        assertEquals(0, purgatory.metrics().purged(), "the payload must be freed without a purge");
    }

    /** Keeps no strong reference to the operation or its payload once it returns. */
    private static WeakReference<Object> offerAndCompleteThroughOneKey(DelayedOperationPurgatory<TestOperation> purgatory,
                                                                       Runnable beforeCompleting) {
        TestOperation op = new TestOperation(60_000);
        op.payload = new byte[16 << 20];
        WeakReference<Object> payload = new WeakReference<>(op.payload);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of("a", "shared")));
        beforeCompleting.run();
        op.setReady(true);
        assertEquals(1, purgatory.checkAndComplete("a"));
        assertNotNull(payload.get());
        return payload;
    }

    // --- cancelForKey ---

    @Test
    void cancelForKeyCompletesEveryOperationWatchingTheKeyWithItsReason() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation onXAndY = new TestOperation(DELAY_MS);
            TestOperation onX = new TestOperation(DELAY_MS);
            TestOperation completedOnX = new TestOperation(DELAY_MS);
            TestOperation onYOnly = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(onXAndY, List.of("x", "y"));
            purgatory.tryCompleteElseWatch(onX, List.of("x"));
            purgatory.tryCompleteElseWatch(completedOnX, List.of("x", "z"));
            purgatory.tryCompleteElseWatch(onYOnly, List.of("y"));
            completedOnX.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("z"));
            assertEquals(3, timer.size());

            assertEquals(2, purgatory.cancelForKey("x", "topic deleted"));

            for (TestOperation cancelled : List.of(onXAndY, onX)) {
                assertAll(
                        () -> assertEquals(List.of("onComplete"), cancelled.events),
                        () -> assertEquals(Completion.CANCELLED, cancelled.completionSeenByOnComplete, "onComplete reads why"),
                        () -> assertEquals("topic deleted", cancelled.reasonSeenByOnComplete),
                        () -> assertTrue(cancelled.isCancelled()));
            }
            assertAll(
                    () -> assertEquals(Completion.COMPLETED, completedOnX.completion(), "an earlier completion stands"),
                    () -> assertNull(completedOnX.cancelReason()),
                    () -> assertEquals(1, purgatory.numDelayed(), "only onYOnly is still delayed"),
                    () -> assertEquals(0, purgatory.checkAndComplete("y")),
                    () -> assertEquals(1, purgatory.watched(), "the cancelled operations left y's list too"),
                    () -> assertEquals(1, timer.size(), "the cancelled operations' expiry is cancelled"),
                    () -> assertEquals(3, purgatory.metrics().completed(), "a cancellation counts as a completion"));

            timer.advance(2 * DELAY_MS);
            assertEquals(List.of("onComplete"), onXAndY.events, "a cancelled operation never expires");
            assertEquals(List.of("onComplete", "onExpiration"), onYOnly.events);
            assertEquals(Completion.EXPIRED, onYOnly.completion());

            assertEquals(0, purgatory.cancelForKey("x", "again"), "nothing is left on x");
            assertEquals(0, purgatory.cancelForKey("never-watched", null));
            assertFalse(onX.forceComplete(), "completed once");
        }
    }

    @Test
    void cancelForKeyCancelsTheOthersWhenAnOnCompleteThrowsAndRethrowsTheFirst() {
        try (var purgatory = mockTimePurgatory()) {
            List<TestOperation> ops = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                TestOperation op = new TestOperation(DELAY_MS);
                int n = i;
                if (i % 2 == 0) {
                    op.duringComplete = () -> {
                        throw new IllegalStateException("onComplete " + n);
                    };
                }
                purgatory.tryCompleteElseWatch(op, List.of("x", "y"));
                ops.add(op);
            }

            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> purgatory.cancelForKey("x", "gone"));

            assertEquals("onComplete 0", thrown.getMessage());
            assertEquals(1, thrown.getSuppressed().length, "the second failure rides along");
            for (TestOperation op : ops) {
                assertEquals(Completion.CANCELLED, op.completion());
                assertEquals(1, op.completions.get());
            }
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size());
            timer.advance(2 * DELAY_MS);
            assertEquals(0, ops.stream().mapToInt(op -> op.expirations.get()).sum());
        }
    }

    @Test
    void anOperationCancelledBeforeItIsOfferedIsNotWatched() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            assertTrue(op.cancel("no longer wanted"));

            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("x")), "it completed before the call");
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.watched());
            assertEquals(0, timer.size());
            assertEquals("no longer wanted", op.cancelReason());
        }
    }

    // --- close ---

    @Test
    void closeAnswersEveryPendingOperationThroughTheExpiryPath() {
        TestOperation onA = new TestOperation(DELAY_MS);
        TestOperation onAAndB = new TestOperation(DELAY_MS);
        TestOperation noKeys = new TestOperation(DELAY_MS);
        TestOperation done = new TestOperation(DELAY_MS);
        done.setReady(true);
        var purgatory = mockTimePurgatory();
        try (purgatory) {
            purgatory.tryCompleteElseWatch(onA, List.of("a"));
            purgatory.tryCompleteElseWatch(onAAndB, List.of("a", "b"));
            purgatory.tryCompleteElseWatch(noKeys, List.of());
            assertTrue(purgatory.tryCompleteElseWatch(done, List.of("a")));
            assertEquals(3, purgatory.numDelayed());
        }

        for (TestOperation op : List.of(onA, onAAndB, noKeys)) {
            assertEquals(List.of("onComplete", "onExpiration"), op.events, op.toString());
        }
        assertEquals(List.of("onComplete"), done.events);
        assertEquals(0, purgatory.numDelayed());
        assertEquals(0, timer.size(), "the expired operations' timer tasks were not cancelled");
        assertEquals(3, purgatory.metrics().expired());
        assertEquals(1, purgatory.metrics().completed());

        purgatory.close(); // idempotent
        assertEquals(List.of("onComplete", "onExpiration"), onA.events);
        assertEquals(3, purgatory.metrics().expired());

        TestOperation late = new TestOperation(DELAY_MS);
        assertTrue(purgatory.tryCompleteElseWatch(late, List.of("a")), "it completed during the call");
        assertEquals(List.of("onComplete", "onExpiration"), late.events, "offered after close: expired at once");
        assertEquals(Completion.CLOSED, late.completion());
        assertEquals(0, purgatory.numDelayed());
        assertEquals(0, timer.size());
    }

    /**
     * An offer that passed the closed check before close() began, but links its watches only after
     * close() swept the lists and returned, must still be answered (by the offering thread).
     */
    @Test
    void operationWhoseOfferOverlapsCloseIsStillAnswered() throws Exception {
        var purgatory = mockTimePurgatory();
        TestOperation op = new TestOperation(DELAY_MS);
        CountDownLatch inFirstTry = new CountDownLatch(1);
        CountDownLatch closeReturned = new CountDownLatch(1);
        op.duringTry = () -> {
            if (op.tries.get() == 1) {
                inFirstTry.countDown();
                awaitLatch(closeReturned);
            }
        };
        try (purgatory) {
            Future<Boolean> offer = executor.submit(() -> purgatory.tryCompleteElseWatch(op, List.of("a")));
            awaitLatch(inFirstTry);

            purgatory.close();
            closeReturned.countDown();

            assertTrue(getWithin(offer, "the offer did not return"), "it completed during the call");
            assertEquals(List.of("onComplete", "onExpiration"), op.events, "left unanswered by close()");
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size(), "scheduled on the timer after close()");
        }
    }

    // --- metrics ---

    @Test
    void metricsCountCompletedExpiredAndTimerExpiryLateness() {
        TestOperation closedOut = new TestOperation(10 * DELAY_MS);
        var purgatory = mockTimePurgatory();
        try (purgatory) {
            TestOperation first = new TestOperation(DELAY_MS);
            first.setReady(true);
            purgatory.tryCompleteElseWatch(first, List.of("a"));
            for (int i = 0; i < 2; i++) {
                TestOperation op = new TestOperation(DELAY_MS);
                purgatory.tryCompleteElseWatch(op, List.of("a"));
                op.setReady(true);
            }
            assertEquals(2, purgatory.checkAndComplete("a"));
            for (int i = 0; i < 4; i++) {
                purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS + i), List.of("b"));
            }
            purgatory.tryCompleteElseWatch(closedOut, List.of("c"));
            assertEquals(5, purgatory.metrics().delayed());

            timer.advance(2 * DELAY_MS);

            PurgatoryMetrics metrics = purgatory.metrics();
            assertEquals(3, metrics.completed());
            assertEquals(4, metrics.expired());
            assertEquals(4, metrics.expiryLateness().count(), "one lateness sample per timer expiry");
            assertEquals(0, metrics.expiryLateness().maxMs(), "MockTimer expires exactly at the deadline");
            assertEquals(1, metrics.delayed());
            assertEquals(purgatory.watched(), metrics.watched());
            PurgatoryMetrics.Snapshot snapshot = metrics.snapshot();
            assertEquals(new PurgatoryMetrics.Snapshot(purgatory.name(), 1, purgatory.watched(), 3, 4, metrics.purged(),
                    new LatencyHistogram.Summary(4, 0, 0, 0, 0, 0)), snapshot);
        }
        assertEquals(5, purgatory.metrics().expired(), "close expires the last one");
        assertEquals(4, purgatory.metrics().expiryLateness().count(), "expiry by close is not timer lateness");
        assertEquals(0, purgatory.metrics().delayed());
    }

    @Test
    void purgeIntervalZeroPurgesEveryWatchOfACompletedOperation() {
        try (var purgatory = mockTimePurgatory(0)) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a", "b", "c"));
            op.setReady(true);

            assertEquals(1, purgatory.checkAndComplete("a"));

            assertEquals(3, purgatory.metrics().purged());
            assertEquals(0, purgatory.watched());
        }
    }

    @Test
    void metricsAreReadableOverJmxWhileOpenAndUnregisteredAfterClose() throws Exception {
        String name = uniqueName();
        ObjectName objectName = new ObjectName("io.purgatory:type=DelayedOperationPurgatory,name=\"" + name + "\"");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (var purgatory = DelayedOperationPurgatory.<TestOperation>builder(name)
                .timer(timer).reaperEnabled(false).build()) {
            assertTrue(server.isRegistered(objectName), objectName + " is not registered");
            assertEquals(objectName, purgatory.metrics().objectName());

            TestOperation completed = new TestOperation(DELAY_MS);
            completed.setReady(true);
            purgatory.tryCompleteElseWatch(completed, List.of("a"));
            purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), List.of("a"));
            purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), List.of("b"));
            purgatory.tryCompleteElseWatch(new TestOperation(2 * DELAY_MS), List.of("b", "c"));
            timer.advance(DELAY_MS);

            assertEquals(1L, server.getAttribute(objectName, "Completed"));
            assertEquals(2L, server.getAttribute(objectName, "Expired"));
            assertEquals(1L, server.getAttribute(objectName, "Delayed"));
            assertEquals((long) purgatory.watched(), server.getAttribute(objectName, "Watched"));
            assertEquals(2L, server.getAttribute(objectName, "ExpiryLatenessCount"));
            assertEquals(name, server.getAttribute(objectName, "Name"));
            PurgatoryMetrics.Snapshot snapshot = purgatory.metrics().snapshot();
            for (PurgatoryMetrics.Quantity q : PurgatoryMetrics.Quantity.values()) {
                String attribute = Character.toUpperCase(q.javaName().charAt(0)) + q.javaName().substring(1);
                assertEquals(q.read(purgatory.metrics()), server.getAttribute(objectName, attribute), attribute);
            }
            assertEquals(snapshot.expiryLateness().p99Ms(), server.getAttribute(objectName, "ExpiryLatenessP99Ms"));
            assertEquals(snapshot.expiryLateness().sumMs(), server.getAttribute(objectName, "ExpiryLatenessSumMs"));
        }
        assertFalse(server.isRegistered(objectName), objectName + " is still registered after close");
    }

    // --- locking ---

    /**
     * KAFKA-19312: forceComplete (from outside, or from the timer's expiry) must not run onComplete
     * while another thread is inside tryComplete of the same operation.
     */
    @Tag("stress")
    @Test
    void tryCompleteAndOnCompleteNeverRunAtTheSameTime() throws Exception {
        LongAdder overlaps = new LongAdder();
        int iterations = 300;
        List<TestOperation> operations = new ArrayList<>();
        try (var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName()).build()) { // SystemTimer
            for (int i = 0; i < iterations; i++) {
                TestOperation op = new TestOperation(i % 3, overlaps); // 0-2 ms: the timer races too
                op.duringTry = DelayedOperationPurgatoryTest::spin;
                op.duringComplete = DelayedOperationPurgatoryTest::spin;
                String key = "k" + i;
                purgatory.tryCompleteElseWatch(op, List.of(key));
                CyclicBarrier start = new CyclicBarrier(3);
                Future<Void> checker1 = executor.submit(() -> checkUntilCompleted(purgatory, op, key, start));
                Future<Void> checker2 = executor.submit(() -> checkUntilCompleted(purgatory, op, key, start));
                Future<Void> forcer = executor.submit(() -> {
                    start.await();
                    spin();
                    op.setReady(true);
                    op.forceComplete();
                    return null;
                });
                checker1.get(30, TimeUnit.SECONDS);
                checker2.get(30, TimeUnit.SECONDS);
                forcer.get(30, TimeUnit.SECONDS);
                // the threads above stop once the operation is completed, which is before its callbacks
                // have run: the timer's thread, when the timeout won, may still be in them
                awaitQuickly().until(op::callbacksRan);
                operations.add(op);
            }
            for (TestOperation op : operations) {
                assertEquals(1, op.completions.get(), op.toString());
            }
            assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
            assertEquals(iterations, purgatory.metrics().completed() + purgatory.metrics().expired());
        }
    }

    private static Void checkUntilCompleted(DelayedOperationPurgatory<TestOperation> purgatory, TestOperation op,
                                            String key, CyclicBarrier start) throws Exception {
        start.await();
        while (!op.isCompleted()) {
            purgatory.checkAndComplete(key);
        }
        return null;
    }

    /** A slow-ish step of a tryComplete or onComplete: a short busy loop, not a wait. */
    private static void spin() {
        for (int i = 0; i < 200; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * Kafka's maybeTryComplete: a checkAndComplete that finds the operation locked by another thread
     * does not wait for it, and the condition change it brought is not lost: the holder retries.
     */
    @Test
    void checkAndCompleteDoesNotBlockOnALockedOperationAndItsRetryIsNotLost() throws Exception {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a"));
            CountDownLatch inTry = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger blocked = new AtomicInteger();
            op.duringTry = () -> {
                if (blocked.getAndIncrement() == 0) { // only the first try stalls, having read "not ready"
                    inTry.countDown();
                    awaitLatch(release);
                }
            };
            Future<Integer> holder = executor.submit(() -> purgatory.checkAndComplete("a"));
            assertTrue(inTry.await(30, TimeUnit.SECONDS));

            op.setReady(true);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> purgatory.checkAndComplete("a"), executor);
            assertEquals(0, getWithin(second, "checkAndComplete blocked on the locked operation"),
                    "it could not have completed the operation: the lock is held");
            assertFalse(op.isCompleted());

            release.countDown();
            assertEquals(1, holder.get(30, TimeUnit.SECONDS), "the holder did not retry after the lost tryLock");
            assertTrue(op.isCompleted());
            assertEquals(1, op.completions.get());
        }
    }

    /** Awaitility for outcomes expected within milliseconds: polls at once and then every millisecond. */
    private static ConditionFactory awaitQuickly() {
        return await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }

    /** The future's result; a failure if it takes so long that the call must be stuck. */
    private static <V> V getWithin(Future<V> future, String stuck) throws Exception {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(stuck, e);
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void onCompleteMayCompleteAnotherOperationThroughCheckAndComplete() {
        try (var purgatory = mockTimePurgatory()) {
            TestOperation first = new TestOperation(DELAY_MS);
            TestOperation second = new TestOperation(DELAY_MS);
            AtomicInteger completedByCallback = new AtomicInteger(-1);
            first.duringComplete = () -> completedByCallback.set(purgatory.checkAndComplete("b"));
            purgatory.tryCompleteElseWatch(first, List.of("a"));
            purgatory.tryCompleteElseWatch(second, List.of("b"));
            first.setReady(true);
            second.setReady(true);

            assertEquals(1, purgatory.checkAndComplete("a"));

            assertEquals(1, completedByCallback.get());
            assertTrue(second.isCompleted());
            assertEquals(0, purgatory.numDelayed());
        }
    }

    /**
     * Two operations whose onComplete each call checkAndComplete on the other's key, completed at the
     * same moment from two threads: with blocking locks this is a lock-order deadlock.
     */
    @Tag("stress")
    @Test
    void onCompleteCallingCheckAndCompleteOnAnotherKeyDoesNotDeadlock() throws Exception {
        int iterations = 500;
        try (var purgatory = mockTimePurgatory()) {
            for (int i = 0; i < iterations; i++) {
                String keyA = "a" + i;
                String keyB = "b" + i;
                TestOperation a = new TestOperation(DELAY_MS);
                TestOperation b = new TestOperation(DELAY_MS);
                a.duringComplete = () -> purgatory.checkAndComplete(keyB);
                b.duringComplete = () -> purgatory.checkAndComplete(keyA);
                purgatory.tryCompleteElseWatch(a, List.of(keyA));
                purgatory.tryCompleteElseWatch(b, List.of(keyB));
                a.setReady(true);
                b.setReady(true);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Integer> onA = executor.submit(() -> {
                    start.await();
                    return purgatory.checkAndComplete(keyA);
                });
                Future<Integer> onB = executor.submit(() -> {
                    start.await();
                    return purgatory.checkAndComplete(keyB);
                });

                getWithin(onA, "iteration " + i + ": checkAndComplete(" + keyA + ") deadlocked");
                getWithin(onB, "iteration " + i + ": checkAndComplete(" + keyB + ") deadlocked");
                assertEquals(1, a.completions.get());
                assertEquals(1, b.completions.get());
            }
            assertEquals(0, purgatory.numDelayed());
            assertEquals(2L * iterations, purgatory.metrics().completed());
        }
    }
}
