package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.purgatory.timer.MockTimer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A walk ({@code checkAndComplete}) adds its completions to the purgatory's counts once, when it
 * returns ({@link WalkTally}): what a user reads after the call is exact, whether the walk completed
 * operations itself, through a walk nested in an {@code onComplete} (of the same purgatory or of
 * another), or through an {@code onComplete} that threw. Purgatories with their reaper thread, the
 * only ones that tally.
 */
class WalkTallyTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final long DELAY_MS = 60_000;

    private final MockTimer timer = new MockTimer();

    @AfterEach
    void tearDown() {
        timer.close();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory() {
        return DelayedOperationPurgatory.<TestOperation>builder("walk-tally-" + PURGATORIES.incrementAndGet())
                .timer(timer).build(); // reaper enabled
    }

    private static TestOperation parked(DelayedOperationPurgatory<TestOperation> purgatory, String... keys) {
        TestOperation op = new TestOperation(DELAY_MS);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of(keys)));
        return op;
    }

    @Test
    void aWalkOfManyCountsEachCompletionOnce() {
        try (var purgatory = purgatory()) {
            for (int i = 0; i < 100; i++) {
                parked(purgatory, "shared", "own-" + i).setReady(true);
            }
            TestOperation waiting = parked(purgatory, "shared");

            assertEquals(100, purgatory.checkAndComplete("shared"));

            assertEquals(1, purgatory.numDelayed());
            assertEquals(100, purgatory.metrics().completed());
            assertEquals(1, purgatory.metrics().delayed());
            assertFalse(waiting.isCompleted());
        }
    }

    @Test
    void aWalkNestedInAnOnCompleteOfTheSamePurgatoryIsCounted() {
        try (var purgatory = purgatory()) {
            TestOperation outer = parked(purgatory, "x", "y");
            TestOperation inner = parked(purgatory, "z");
            AtomicInteger innerCompleted = new AtomicInteger();
            outer.duringComplete = () -> {
                inner.setReady(true);
                innerCompleted.set(purgatory.checkAndComplete("z"));
            };
            outer.setReady(true);

            assertEquals(1, purgatory.checkAndComplete("x"));

            assertEquals(1, innerCompleted.get());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(2, purgatory.metrics().completed());
        }
    }

    @Test
    void aWalkOfAnotherPurgatoryNestedInAnOnCompleteIsCountedInIts() {
        try (var first = purgatory(); var second = purgatory()) {
            TestOperation outer = parked(first, "x");
            TestOperation inner = parked(second, "x");
            outer.duringComplete = () -> {
                inner.setReady(true);
                second.checkAndComplete("x");
            };
            outer.setReady(true);

            assertEquals(1, first.checkAndComplete("x"));

            assertEquals(0, first.numDelayed());
            assertEquals(0, second.numDelayed());
            assertEquals(1, first.metrics().completed());
            assertEquals(1, second.metrics().completed());
        }
    }

    @Test
    void aWalkWhoseOnCompleteThrowsStillCountsIt() {
        try (var purgatory = purgatory()) {
            TestOperation op = parked(purgatory, "x");
            IllegalStateException thrown = new IllegalStateException("onComplete failed");
            op.duringComplete = () -> {
                throw thrown;
            };
            op.setReady(true);

            assertSame(thrown, assertThrows(IllegalStateException.class, () -> purgatory.checkAndComplete("x")));

            assertEquals(0, purgatory.numDelayed());
            assertEquals(1, purgatory.metrics().completed());
        }
    }
}
