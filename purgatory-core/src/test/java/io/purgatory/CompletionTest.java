package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DelayedOperation#completion()} on every path, as {@code onComplete} sees it, with the
 * metrics each path counts in; and the shape of the position forms, which cannot be taken for the
 * keys form.
 */
class CompletionTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final long DELAY_MS = 100;

    private final MockTimer timer = new MockTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory() {
        return DelayedOperationPurgatory.<TestOperation>builder("CompletionTest-" + PURGATORIES.incrementAndGet())
                .timer(timer).reaperEnabled(false).build();
    }

    private static void assertCompletedAs(Completion expected, Object reason, TestOperation op) {
        assertEquals(expected, op.completion(), op.toString());
        assertEquals(expected, op.completionSeenByOnComplete, "set before onComplete runs");
        assertEquals(reason, op.cancelReason());
        assertEquals(reason, op.reasonSeenByOnComplete);
        assertEquals(1, op.completions.get());
        boolean expiry = expected == Completion.EXPIRED || expected == Completion.CLOSED;
        assertEquals(expiry ? List.of("onComplete", "onExpiration") : List.of("onComplete"), op.events);
        assertEquals(expected == Completion.CANCELLED, op.isCancelled());
    }

    @Test
    void aPendingOperationHasNoCompletion() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            assertNull(op.completion());
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));
            assertNull(op.completion());
            assertNull(op.cancelReason());
            assertFalse(op.isCancelled());
        }
    }

    @Test
    void completedOnTheFirstTry() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            op.setReady(true);
            assertTrue(purgatory.tryCompleteElseWatch(op, List.of("k")));
            assertCompletedAs(Completion.COMPLETED, null, op);
        }
    }

    @Test
    void completedByCheckAndCompleteAndByAdvance() {
        try (var purgatory = purgatory()) {
            TestOperation byCheck = new TestOperation(DELAY_MS);
            TestOperation byAdvance = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(byCheck, List.of("k"));
            purgatory.tryCompleteElseWatchPosition(byAdvance, "p", 5);
            byCheck.setReady(true);
            byAdvance.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("k"));
            assertEquals(1, purgatory.advance("p", 5));
            assertCompletedAs(Completion.COMPLETED, null, byCheck);
            assertCompletedAs(Completion.COMPLETED, null, byAdvance);
            assertEquals(2, purgatory.metrics().completed());
        }
    }

    @Test
    void forceCompletedFromOutside() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("k"));
            assertTrue(op.forceComplete());
            assertFalse(op.cancel("late"), "a later cancel changes nothing");
            assertCompletedAs(Completion.COMPLETED, null, op);
        }
    }

    @Test
    void cancelledWithAndWithoutAReason() {
        try (var purgatory = purgatory()) {
            TestOperation plain = new TestOperation(DELAY_MS);
            TestOperation withReason = new TestOperation(DELAY_MS);
            TestOperation byKey = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(plain, List.of("k"));
            purgatory.tryCompleteElseWatch(withReason, List.of("k"));
            purgatory.tryCompleteElseWatchPositions(byKey, Map.of("p", 5L, "q", 6L));
            assertTrue(plain.cancel());
            assertTrue(withReason.cancel(42));
            assertEquals(1, purgatory.cancelForKey("q", "deleted"));
            assertCompletedAs(Completion.CANCELLED, null, plain);
            assertCompletedAs(Completion.CANCELLED, 42, withReason);
            assertCompletedAs(Completion.CANCELLED, "deleted", byKey);
            assertEquals(3, purgatory.metrics().completed());
            assertEquals(0, purgatory.metrics().expired());
            assertEquals(0, timer.size());
        }
    }

    @Test
    void expiredByItsTimer() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("k"));
            timer.advance(DELAY_MS);
            assertCompletedAs(Completion.EXPIRED, null, op);
            assertEquals(1, purgatory.metrics().expired());
            assertEquals(1, purgatory.metrics().expiryLateness().count(), "lateness is recorded for timer expiries");
        }
    }

    @Test
    void expiredByCloseAndWhenOfferedAfterClose() {
        TestOperation pending = new TestOperation(DELAY_MS);
        TestOperation late = new TestOperation(DELAY_MS);
        var purgatory = purgatory();
        purgatory.tryCompleteElseWatchPosition(pending, "p", 5);
        assertFalse(purgatory.isClosed());

        purgatory.close();

        assertTrue(purgatory.isClosed());
        assertCompletedAs(Completion.CLOSED, null, pending);
        // true: answered during the call, nothing to wait for; not "the condition held" (it did not)
        assertTrue(purgatory.tryCompleteElseWatch(late, List.of("k")), "it completed during the call");
        assertCompletedAs(Completion.CLOSED, null, late);
        assertEquals(0, late.tries.get(), "a closed purgatory does not try it");
        assertEquals(2, purgatory.metrics().expired());
        assertEquals(0, purgatory.metrics().expiryLateness().count(), "an early expiry is not late");
    }

    @Test
    void thePositionFormRefusesACollectionForItsKey() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);

            IllegalArgumentException single = assertThrows(IllegalArgumentException.class,
                    () -> purgatory.tryCompleteElseWatchPosition(op, List.of("a", "b"), 5));
            IllegalArgumentException inMap = assertThrows(IllegalArgumentException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(op, Map.of(List.of("a"), 5L)));

            assertTrue(single.getMessage().contains("tryCompleteElseWatchPositions"), single.getMessage());
            assertTrue(inMap.getMessage().contains("not a collection"), inMap.getMessage());
            assertEquals(0, purgatory.watched());
            assertFalse(purgatory.tryCompleteElseWatchPosition(op, "a", 5), "a refused offer does not use the operation up");
        }
    }
}
