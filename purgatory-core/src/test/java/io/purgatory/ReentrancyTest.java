package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Purgatory calls made from inside an operation's {@code tryComplete}, {@code onComplete} and
 * {@code onExpiration}, as {@link DelayedOperation#tryComplete()} documents them: a walk nested in an
 * operation's own try skips that operation (it is being tried already) and tries the others; calls on
 * other keys, other operations and other purgatories work; offering the operation again fails at once.
 * None overflows the stack, and none leaves an operation parked without its expiry. On a
 * {@link MockTimer}, without a reaper thread.
 */
class ReentrancyTest {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long DELAY_MS = 100;

    private final MockTimer timer = new MockTimer();
    private final DelayedOperationPurgatory<TestOperation> purgatory = purgatory();

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory() {
        return DelayedOperationPurgatory.<TestOperation>builder("ReentrancyTest-" + NAMES.incrementAndGet())
                .timer(timer).reaperEnabled(false).build();
    }

    private static TestOperation parked(DelayedOperationPurgatory<TestOperation> purgatory, String... keys) {
        TestOperation op = new TestOperation(DELAY_MS);
        assertFalse(purgatory.tryCompleteElseWatch(op, List.of(keys)));
        return op;
    }

    private static TestOperation parkedAt(DelayedOperationPurgatory<TestOperation> purgatory, String key, long position) {
        TestOperation op = new TestOperation(DELAY_MS);
        assertFalse(purgatory.tryCompleteElseWatchPosition(op, key, position));
        return op;
    }

    // --- from inside tryComplete ---

    @Test
    void checkAndCompleteOfItsOwnKeySkipsTheOperationBeingTriedAndTriesTheOthers() {
        TestOperation self = parked(purgatory, "k");
        TestOperation other = parked(purgatory, "k");
        other.setReady(true);
        AtomicInteger nested = new AtomicInteger(-1);
        self.duringTry = () -> nested.set(purgatory.checkAndComplete("k"));
        int triesBefore = self.tries.get();

        assertEquals(0, purgatory.checkAndComplete("k")); // the nested walk completed the other one

        assertEquals(1, nested.get());
        assertEquals(Completion.COMPLETED, other.completion());
        assertEquals(triesBefore + 1, self.tries.get(), "the operation being tried was not tried again");
        assertFalse(self.isCompleted());
        assertEquals(1, purgatory.numDelayed());

        self.duringTry = () -> { };
        self.setReady(true);
        assertEquals(1, purgatory.checkAndComplete("k"));
        assertEquals(0, purgatory.numDelayed());
    }

    @Test
    void aNestedWalkOfItsOwnKeyDuringTheOfferLeavesItParkedWithItsExpiry() {
        TestOperation self = new TestOperation(DELAY_MS);
        AtomicInteger nestedWalks = new AtomicInteger();
        self.duringTry = () -> {
            nestedWalks.incrementAndGet();
            purgatory.checkAndComplete("k");
        };

        assertFalse(purgatory.tryCompleteElseWatch(self, List.of("k")));

        assertEquals(2, self.tries.get(), "tried once before and once after watching, never by the nested walks");
        assertEquals(2, nestedWalks.get());
        assertEquals(1, purgatory.numDelayed());
        timer.advance(DELAY_MS);
        assertEquals(Completion.EXPIRED, self.completion());
        assertEquals(1, self.expirations.get());
        assertEquals(0, purgatory.numDelayed());
    }

    @Test
    void anOperationThatBecomesReadyInItsOwnNestedWalkCompletesByItsOwnTry() {
        TestOperation self = parked(purgatory, "k");
        self.duringTry = () -> {
            self.setReady(true); // its own action made it ready (read after this runs: see below)
            purgatory.checkAndComplete("k");
        };
        // TestOperation reads its flag before duringTry: this try returns false; the next one completes
        assertEquals(0, purgatory.checkAndComplete("k"));
        assertFalse(self.isCompleted());
        assertEquals(1, purgatory.checkAndComplete("k"));
        assertEquals(Completion.COMPLETED, self.completion());
    }

    @Test
    void anAdvanceOfItsOwnKeyTakesItsPositionWatchAndLeavesItToCheckAndComplete() {
        TestOperation self = parkedAt(purgatory, "k", 5);
        TestOperation due = parkedAt(purgatory, "k", 5);
        due.setReady(true);
        AtomicInteger nested = new AtomicInteger(-1);
        self.duringTry = () -> nested.set(purgatory.advance("k", 5));

        purgatory.checkAndComplete("k");

        assertEquals(1, nested.get(), "the nested advance completed the other operation at the position");
        assertEquals(Completion.COMPLETED, due.completion());
        assertFalse(self.isCompleted());
        self.duringTry = () -> { };
        self.setReady(true);
        assertEquals(0, purgatory.advance("k", 6), "its position watch was taken by the nested advance");
        assertEquals(1, purgatory.checkAndComplete("k"));
        assertEquals(Completion.COMPLETED, self.completion());
    }

    @Test
    void callsOnOtherKeysAndOtherPurgatoriesWork() {
        try (DelayedOperationPurgatory<TestOperation> another = purgatory()) {
            TestOperation self = parked(purgatory, "a");
            TestOperation sameOtherKey = parked(purgatory, "b");
            TestOperation elsewhere = parked(another, "a");
            sameOtherKey.setReady(true);
            elsewhere.setReady(true);
            List<Integer> nested = new ArrayList<>();
            self.duringTry = () -> {
                nested.add(purgatory.checkAndComplete("b"));
                nested.add(another.checkAndComplete("a"));
            };

            purgatory.checkAndComplete("a");

            assertEquals(List.of(1, 1), nested);
            assertEquals(Completion.COMPLETED, sameOtherKey.completion());
            assertEquals(Completion.COMPLETED, elsewhere.completion());
            assertEquals(1, purgatory.numDelayed());
            assertEquals(0, another.numDelayed());
            assertEquals(1, purgatory.metrics().completed());
            assertEquals(1, another.metrics().completed());
        }
    }

    @Test
    void forceCompleteFromItsOwnTryCompletesItOnceAndASecondCallDoesNothing() {
        TestOperation self = parked(purgatory, "k");
        List<Boolean> results = new ArrayList<>();
        self.duringTry = () -> {
            results.add(self.forceComplete());
            results.add(self.forceComplete());
            results.add(self.cancel("late"));
        };

        purgatory.checkAndComplete("k");

        assertEquals(List.of(true, false, false), results);
        assertEquals(Completion.COMPLETED, self.completion());
        assertEquals(1, self.completions.get());
        assertEquals(0, purgatory.numDelayed());
    }

    @Test
    void completingAnotherOperationFromTryCompleteRunsItsOnCompleteOnThisThread() {
        TestOperation self = parked(purgatory, "a");
        TestOperation other = parked(purgatory, "b");
        TestOperation cancelled = parked(purgatory, "b");
        AtomicReference<Thread> otherCompletedOn = new AtomicReference<>();
        other.duringComplete = () -> otherCompletedOn.set(Thread.currentThread());
        self.duringTry = () -> {
            assertTrue(other.forceComplete());
            assertTrue(cancelled.cancel("because"));
        };

        purgatory.checkAndComplete("a");

        assertSame(Thread.currentThread(), otherCompletedOn.get());
        assertEquals(Completion.COMPLETED, other.completion());
        assertEquals("because", cancelled.reasonSeenByOnComplete);
        assertEquals(1, purgatory.numDelayed());
    }

    @Test
    void offeringTheOperationAgainFromItsOwnTryFailsAtOnceAndItKeepsWaiting() {
        TestOperation self = parked(purgatory, "k");
        self.duringTry = () -> purgatory.tryCompleteElseWatch(self, List.of("other"));

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> purgatory.checkAndComplete("k"));

        assertTrue(e.getMessage().startsWith("operation already offered to purgatory"), e.getMessage());
        assertFalse(self.isCompleted());
        timer.advance(DELAY_MS);
        assertEquals(Completion.EXPIRED, self.completion());
    }

    @Test
    void offeringANewOperationFromTryCompleteParksIt() {
        TestOperation self = parked(purgatory, "k");
        TestOperation fresh = new TestOperation(DELAY_MS);
        AtomicReference<Boolean> offered = new AtomicReference<>();
        self.duringTry = () -> {
            if (offered.get() == null) {
                offered.set(purgatory.tryCompleteElseWatch(fresh, List.of("k")));
            }
        };

        purgatory.checkAndComplete("k");

        assertFalse(offered.get());
        assertEquals(2, purgatory.numDelayed());
        fresh.setReady(true);
        self.duringTry = () -> { };
        assertEquals(1, purgatory.checkAndComplete("k"));
        assertEquals(Completion.COMPLETED, fresh.completion());
    }

    @Test
    void cancelForKeyOfItsOwnKeyCancelsItTooOnThisThread() {
        TestOperation self = parked(purgatory, "k");
        TestOperation other = parked(purgatory, "k");
        AtomicInteger nested = new AtomicInteger(-1);
        self.duringTry = () -> nested.set(purgatory.cancelForKey("k", "gone"));

        assertEquals(0, purgatory.checkAndComplete("k"));

        assertEquals(2, nested.get());
        assertEquals("gone", self.reasonSeenByOnComplete);
        assertEquals("gone", other.reasonSeenByOnComplete);
        assertEquals(0, purgatory.numDelayed());
        assertEquals(0, self.expirations.get());
    }

    // --- from inside onComplete and onExpiration ---

    @Test
    void fromOnCompleteCallsOnItsOwnKeyTryTheOthersAndLeaveItCompleted() {
        TestOperation self = parked(purgatory, "k");
        TestOperation viaCheck = parked(purgatory, "k");
        TestOperation viaAdvance = parkedAt(purgatory, "k", 3);
        viaCheck.setReady(true);
        viaAdvance.setReady(true);
        List<Object> nested = new ArrayList<>();
        self.duringComplete = () -> {
            nested.add(self.forceComplete());
            nested.add(purgatory.checkAndComplete("k"));
            nested.add(purgatory.advance("k", 3));
        };
        self.setReady(true);

        assertTrue(self.forceComplete());

        assertEquals(List.of(false, 2, 0), nested); // checkAndComplete tries position watches too
        assertEquals(1, self.completions.get());
        assertEquals(0, purgatory.numDelayed());
    }

    @Test
    void fromOnExpirationItsKeyCanBeWalkedAndTheOperationReplaced() {
        TestOperation self = parked(purgatory, "k");
        TestOperation neighbour = new TestOperation(DELAY_MS * 10);
        assertFalse(purgatory.tryCompleteElseWatch(neighbour, List.of("k")));
        TestOperation replacement = new TestOperation(DELAY_MS);
        AtomicInteger walked = new AtomicInteger(-1);
        AtomicReference<Boolean> offered = new AtomicReference<>();
        self.duringExpiration = () -> {
            neighbour.setReady(true);
            walked.set(purgatory.checkAndComplete("k"));
            offered.set(purgatory.tryCompleteElseWatch(replacement, List.of("k")));
        };

        timer.advance(DELAY_MS);

        assertEquals(Completion.EXPIRED, self.completion());
        assertEquals(1, walked.get());
        assertEquals(Completion.COMPLETED, neighbour.completion());
        assertFalse(offered.get());
        assertEquals(1, purgatory.numDelayed());
        timer.advance(DELAY_MS);
        assertEquals(Completion.EXPIRED, replacement.completion());
        assertEquals(0, purgatory.numDelayed());
    }

    // --- Waiters ---

    @Test
    void aWaitersStageCanAdvanceAndWaitAgainOnTheCompletingThread() {
        MockTimer waitersTimer = new MockTimer();
        AtomicInteger position = new AtomicInteger();
        try (Waiters<String> waiters = new Waiters<>(
                DelayedOperationPurgatory.builder("ReentrancyTest-waiters-" + NAMES.incrementAndGet())
                        .timer(waitersTimer).reaperEnabled(false), key -> position.get())) {
            CompletableFuture<WaitOutcome> second = waiters.waitFor("b", 1, Duration.ofMillis(DELAY_MS));
            AtomicReference<CompletableFuture<WaitOutcome>> third = new AtomicReference<>();
            CompletableFuture<WaitOutcome> first = waiters.waitFor("a", 1, Duration.ofMillis(DELAY_MS));
            CompletableFuture<Void> stage = first.thenRun(() -> {
                waiters.advance("b"); // inside the first wait's completion, under its lock
                third.set(waiters.waitFor("a", 1, Duration.ofMillis(DELAY_MS)));
            });
            position.set(1);

            assertEquals(1, waiters.advance("a"));

            assertTrue(stage.isDone() && !stage.isCompletedExceptionally(), stage.toString());
            assertEquals(WaitOutcome.REACHED, second.getNow(null));
            assertEquals(WaitOutcome.REACHED, third.get().getNow(null));
            assertEquals(0, waiters.metrics().delayed());
        } finally {
            waitersTimer.close();
        }
    }

    @Test
    void closeFromInsideTryCompleteClosesEveryOperationItsOwnIncluded() {
        TestOperation self = parked(purgatory, "k");
        TestOperation other = parked(purgatory, "j");
        self.duringTry = purgatory::close;

        assertEquals(0, purgatory.checkAndComplete("k"));

        assertEquals(Completion.CLOSED, self.completion());
        assertEquals(Completion.CLOSED, other.completion());
        assertEquals(1, self.expirations.get());
        assertEquals(0, purgatory.numDelayed());
    }
}
