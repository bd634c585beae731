package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An exception from user code never strands an operation: a {@code tryComplete} that throws, on its
 * first try, its second (after the operation was linked, inside {@code tryCompleteElseWatch}), a
 * retry another thread asked for during the offer, or any later try ({@code advance},
 * {@code checkAndComplete}), counts as "not yet": the operation stays watched with its expiry
 * scheduled, and the exception reaches the caller. A call that tries several operations tries them
 * all, then rethrows the first exception. An {@code onComplete} that throws leaves its operation
 * completed.
 */
class UserExceptionTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final long DELAY_MS = 100;

    private final MockTimer timer = new MockTimer();
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS), "test threads did not stop");
        timer.close();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory() {
        return DelayedOperationPurgatory.<TestOperation>builder("UserExceptionTest-" + PURGATORIES.incrementAndGet())
                .timer(timer).reaperEnabled(false).purgeInterval(0).build();
    }

    /** An operation whose tryComplete throws on the tries {@code throwsOn} accepts (counted from 1). */
    private static TestOperation throwingOn(IntPredicate throwsOn) {
        TestOperation op = new TestOperation(DELAY_MS);
        op.duringTry = () -> {
            int attempt = op.tries.get();
            if (throwsOn.test(attempt)) {
                throw new IllegalStateException("try " + attempt);
            }
        };
        return op;
    }

    /** The operation is in the purgatory as if its tries had returned false: watched, and expiring at its deadline. */
    private void assertWaitingThenExpires(DelayedOperationPurgatory<TestOperation> purgatory, TestOperation op) {
        assertFalse(op.isCompleted());
        assertEquals(1, purgatory.numDelayed(), "still delayed");
        assertEquals(1, timer.size(), "its expiry is scheduled");
        timer.advance(DELAY_MS);
        assertEquals(Completion.EXPIRED, op.completion());
        assertEquals(List.of("onComplete", "onExpiration"), op.events);
        assertEquals(0, purgatory.numDelayed());
        assertEquals(0, purgatory.watched());
    }

    @Test
    void aFirstTryThatThrowsStillWatchesAndSchedulesTheOperation() {
        try (var purgatory = purgatory()) {
            TestOperation op = throwingOn(attempt -> attempt == 1);

            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> purgatory.tryCompleteElseWatch(op, List.of("k")));

            assertEquals("try 1", thrown.getMessage());
            assertEquals(2, op.tries.get(), "the second try ran");
            assertEquals(1, purgatory.watched());
            op.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("k"), "a later try completes it");
            assertEquals(Completion.COMPLETED, op.completion());
            assertEquals(0, timer.size());
        }
    }

    @Test
    void aSecondTryThatThrowsLeavesTheOperationWatchedWithItsExpiry() {
        try (var purgatory = purgatory()) {
            TestOperation op = throwingOn(attempt -> attempt == 2);

            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> purgatory.tryCompleteElseWatch(op, List.of("a", "b")));

            assertEquals("try 2", thrown.getMessage());
            assertEquals(2, purgatory.watched());
            assertWaitingThenExpires(purgatory, op);
        }
    }

    @Test
    void whenBothTriesOfAnOfferThrowTheFirstExceptionCarriesTheSecond() {
        try (var purgatory = purgatory()) {
            TestOperation op = throwingOn(attempt -> true);

            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> purgatory.tryCompleteElseWatchPosition(op, "p", 10));

            assertEquals("try 1", thrown.getMessage());
            assertEquals(1, thrown.getSuppressed().length);
            assertEquals("try 2", thrown.getSuppressed()[0].getMessage());
            assertWaitingThenExpires(purgatory, op);
        }
    }

    /**
     * The third try of an offer: another thread's checkAndComplete finds the operation locked by the
     * offer's second try and asks for a retry, which the offering thread runs after it unlocks, before
     * it schedules the expiry. That retry throws.
     */
    @Test
    void aRetryThatThrowsAfterTheOfferUnlockedStillLeavesTheExpiryScheduled() throws Exception {
        try (var purgatory = purgatory()) {
            CountDownLatch inSecondTry = new CountDownLatch(1);
            CountDownLatch retryAsked = new CountDownLatch(1);
            TestOperation op = new TestOperation(DELAY_MS);
            op.duringTry = () -> {
                int attempt = op.tries.get();
                if (attempt == 2) {
                    inSecondTry.countDown();
                    await(retryAsked);
                } else if (attempt == 3) {
                    throw new IllegalStateException("try 3");
                }
            };
            Future<?> offer = executor.submit(() -> purgatory.tryCompleteElseWatch(op, List.of("k")));
            await(inSecondTry);
            assertEquals(0, purgatory.checkAndComplete("k"), "the operation is locked by the offer: a retry is asked for");
            retryAsked.countDown();

            Throwable thrown = assertThrows(Exception.class, () -> offer.get(30, TimeUnit.SECONDS)).getCause();

            assertEquals("try 3", thrown.getMessage());
            assertEquals(3, op.tries.get());
            assertWaitingThenExpires(purgatory, op);
        }
    }

    @Test
    void checkAndCompleteTriesEveryOperationThenRethrowsTheFirstException() {
        try (var purgatory = purgatory()) {
            List<TestOperation> ops = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                TestOperation op = i == 1 || i == 3 ? throwingOn(attempt -> attempt > 2) : new TestOperation(DELAY_MS);
                assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));
                op.setReady(true);
                ops.add(op);
            }

            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> purgatory.checkAndComplete("k"));

            assertEquals(1, thrown.getSuppressed().length, "both failures reported");
            for (int i : new int[] {0, 2, 4}) {
                assertEquals(Completion.COMPLETED, ops.get(i).completion(), "operation " + i + " was tried");
            }
            assertEquals(2, purgatory.numDelayed(), "the throwing ones keep waiting");
            assertThrows(IllegalStateException.class, () -> purgatory.checkAndComplete("k"), "and are tried again");
            timer.advance(DELAY_MS);
            assertEquals(Completion.EXPIRED, ops.get(1).completion());
            assertEquals(Completion.EXPIRED, ops.get(3).completion());
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void advanceTriesEveryDueOperationThenRethrowsTheFirstExceptionAsCheckAndCompleteDoes() {
        try (var purgatory = purgatory()) {
            List<TestOperation> ops = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                TestOperation op = i == 1 || i == 3 ? throwingOn(attempt -> attempt > 2) : new TestOperation(DELAY_MS);
                assertFalse(purgatory.tryCompleteElseWatchPosition(op, "p", i));
                op.setReady(true);
                ops.add(op);
            }

            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> purgatory.advance("p", 4));

            assertEquals(1, thrown.getSuppressed().length);
            for (int i : new int[] {0, 2, 4}) {
                assertEquals(Completion.COMPLETED, ops.get(i).completion(), "operation " + i + " was tried");
            }
            assertEquals(0, purgatory.advance("p", 10), "an advance tries an operation once");
            ops.get(1).duringTry = () -> { };
            assertThrows(IllegalStateException.class, () -> purgatory.checkAndComplete("p"), "operation 3 still throws");
            assertEquals(Completion.COMPLETED, ops.get(1).completion(), "checkAndComplete still tries what an advance declined");
            timer.advance(DELAY_MS);
            assertEquals(Completion.EXPIRED, ops.get(3).completion());
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void anOnCompleteThatThrowsDuringTheOfferLeavesTheOperationCompletedAndUnlinked() {
        try (var purgatory = purgatory()) {
            for (int failingTry = 1; failingTry <= 2; failingTry++) {
                TestOperation op = new TestOperation(DELAY_MS);
                int readyOn = failingTry;
                op.duringTry = () -> {
                    if (op.tries.get() == readyOn) {
                        op.forceComplete();
                    }
                };
                IllegalStateException failure = new IllegalStateException("onComplete");
                op.duringComplete = () -> {
                    throw failure;
                };

                assertSame(failure, assertThrows(IllegalStateException.class, () -> purgatory.tryCompleteElseWatch(op, List.of("k"))));

                assertEquals(Completion.COMPLETED, op.completion(), "try " + readyOn);
                assertEquals(1, op.completions.get());
                assertEquals(0, purgatory.numDelayed());
                assertEquals(0, purgatory.watched());
                assertEquals(0, timer.size(), "nothing scheduled for a completed operation");
            }
        }
    }

    @Test
    void anOnCompleteThatThrowsOnExpiryLeavesTheOperationExpired() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            op.duringComplete = () -> {
                throw new IllegalStateException("onComplete");
            };
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));

            assertThrows(IllegalStateException.class, () -> timer.advance(DELAY_MS), "MockTimer hands a task's exception to advance");

            assertEquals(Completion.EXPIRED, op.completion());
            assertEquals(List.of("onComplete", "onExpiration"), op.events, "onExpiration runs all the same");
            assertEquals(1, purgatory.metrics().expired());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.watched());
            assertFalse(op.forceComplete(), "completed once");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS), "latch not released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
