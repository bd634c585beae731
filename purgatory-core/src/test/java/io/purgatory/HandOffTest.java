package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HandOff} one case at a time, on a {@link MockTimer}: who gets each item, in what order,
 * and what a take that times out, is cancelled or is closed leaves behind.
 */
class HandOffTest {

    private static final Duration TIMEOUT = Duration.ofMillis(100);

    private final MockTimer timer = new MockTimer();
    private final HandOff<String, String> handOff = HandOff.<String, String>builder("HandOffTest").timer(timer).build();

    @AfterEach
    void close() {
        handOff.close();
        timer.close();
    }

    private static Handed<String, String> taken(String key, String item) {
        return Handed.taken(key, item);
    }

    private static Handed<String, String> now(CompletableFuture<Handed<String, String>> take) {
        assertTrue(take.isDone(), "answered");
        return take.join();
    }

    @Test
    void aQueuedItemIsTakenAtOnce() {
        handOff.offer("k", "a");
        assertEquals(1, handOff.queued("k"));

        assertEquals(taken("k", "a"), now(handOff.take(List.of("k"), TIMEOUT)));
        assertEquals(0, handOff.queued("k"));
    }

    @Test
    void anItemOfferedToAWaitingTakeGoesToItAndIsNotQueued() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k"), TIMEOUT);
        assertFalse(take.isDone());
        assertEquals(1, handOff.waiting("k"));

        handOff.offer("k", "a");

        assertEquals(taken("k", "a"), now(take));
        assertEquals(0, handOff.queued("k"));
        assertEquals(0, handOff.waiting("k"));
        assertEquals(0, handOff.metrics().delayed());
    }

    @Test
    void waitersOfAKeyAreServedOldestFirstAndEachItemGoesToOne() {
        List<CompletableFuture<Handed<String, String>>> takes = List.of(
                handOff.take(List.of("k"), TIMEOUT), handOff.take(List.of("k"), TIMEOUT), handOff.take(List.of("k"), TIMEOUT));

        handOff.offer("k", "a");
        assertTrue(takes.get(0).isDone());
        assertFalse(takes.get(1).isDone());
        handOff.offer("k", "b");
        handOff.offer("k", "c");
        handOff.offer("k", "d");

        assertEquals(List.of(taken("k", "a"), taken("k", "b"), taken("k", "c")), takes.stream().map(HandOffTest::now).toList());
        assertEquals(1, handOff.queued("k"), "the item no waiter took stays queued");
    }

    @Test
    void aTakeOnSeveralKeysTakesFromTheFirstThatHasAnItemInItsOrder() {
        handOff.offer("b", "b1");
        handOff.offer("a", "a1");

        assertEquals(taken("a", "a1"), now(handOff.take(List.of("a", "b"), TIMEOUT)));
        assertEquals(taken("b", "b1"), now(handOff.take(List.of("a", "b"), TIMEOUT)));
    }

    @Test
    void aWaitingTakeOnSeveralKeysTakesFromTheKeyOfferedAndLeavesTheOthers() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("a", "b"), TIMEOUT);
        assertEquals(1, handOff.waiting("a"));
        assertEquals(1, handOff.waiting("b"));

        handOff.offer("b", "b1");

        assertEquals(taken("b", "b1"), now(take));
        assertEquals(0, handOff.waiting("a"), "no longer waiting on a");
        handOff.offer("a", "a1");
        assertEquals(1, handOff.queued("a"));
    }

    @Test
    void aTakeThatTimedOutLeavesTheNextItemToTheNextWaiter() {
        CompletableFuture<Handed<String, String>> first = handOff.take(List.of("k"), TIMEOUT);
        timer.advance(50);
        CompletableFuture<Handed<String, String>> second = handOff.take(List.of("k"), TIMEOUT);
        timer.advance(50);

        assertEquals(Handed.Outcome.TIMED_OUT, now(first).outcome());
        assertFalse(second.isDone());
        handOff.offer("k", "a");
        assertEquals(taken("k", "a"), now(second));
    }

    @Test
    void aTakeThatTimedOutLeavesTheItemQueued() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k"), TIMEOUT);
        timer.advance(100);
        assertEquals(Handed.Outcome.TIMED_OUT, now(take).outcome());
        assertThrows(NoSuchElementException.class, () -> now(take).item());
        assertEquals(0, handOff.waiting("k"));

        handOff.offer("k", "a");

        assertEquals(1, handOff.queued("k"));
        assertEquals(Optional.of(taken("k", "a")), handOff.poll(List.of("k")));
    }

    @Test
    void aCancelledTakeStopsWaitingAtOnceAndTakesNothingAfterwards() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k", "j"), TIMEOUT);

        assertTrue(take.cancel(true));

        assertTrue(take.isCancelled());
        assertEquals(0, handOff.waiting("k"));
        assertEquals(0, handOff.waiting("j"));
        assertEquals(0, handOff.metrics().delayed());
        handOff.offer("k", "a");
        assertEquals(1, handOff.queued("k"));
        timer.advance(100);
        assertEquals(1, handOff.queued("k"));
    }

    @Test
    void completingTheFutureAnyOtherWayStopsTheTakeToo() {
        CompletableFuture<Handed<String, String>> completed = handOff.take(List.of("k"), TIMEOUT);
        CompletableFuture<Handed<String, String>> failed = handOff.take(List.of("k"), TIMEOUT);
        CompletableFuture<Handed<String, String>> timedOut = handOff.take(List.of("k"), TIMEOUT).orTimeout(1, TimeUnit.NANOSECONDS);

        CompletableFuture<Handed<String, String>> completedAsync = handOff.take(List.of("k"), TIMEOUT);
        completedAsync.completeAsync(() -> Handed.none(Handed.Outcome.CLOSED), Runnable::run);
        assertEquals(Handed.Outcome.CLOSED, now(completedAsync).outcome());
        assertTrue(completed.complete(Handed.none(Handed.Outcome.TIMED_OUT)));
        assertTrue(failed.completeExceptionally(new IllegalStateException("client gone")));
        await().until(timedOut::isDone);

        assertEquals(0, handOff.waiting("k"));
        handOff.offer("k", "a");
        assertEquals(1, handOff.queued("k"));
    }

    @Test
    void cancellingATakeThatTookAnItemKeepsTheItem() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k"), TIMEOUT);
        handOff.offer("k", "a");

        assertFalse(take.cancel(true));
        assertFalse(take.complete(Handed.none(Handed.Outcome.CLOSED)));
        assertThrows(UnsupportedOperationException.class, () -> take.obtrudeValue(Handed.none(Handed.Outcome.CLOSED)));
        assertEquals(taken("k", "a"), now(take));
    }

    @Test
    void closeAnswersEveryWaiterAndKeepsTheQueuedItems() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k"), HandOff.FOREVER);
        handOff.offer("q", "a");

        handOff.close();

        assertTrue(handOff.isClosed());
        assertEquals(Handed.Outcome.CLOSED, now(take).outcome());
        assertEquals(0, handOff.waiting("k"));
        assertEquals(Handed.Outcome.CLOSED, now(handOff.take(List.of("q"), TIMEOUT)).outcome(), "a take after close");
        handOff.offer("q", "b");
        assertEquals(Optional.of(taken("q", "a")), handOff.poll(List.of("q")));
        assertEquals(Optional.of(taken("q", "b")), handOff.poll(List.of("q")));
        assertEquals(Optional.empty(), handOff.poll(List.of("q")));
    }

    @Test
    void aZeroTimeoutTakesWhatIsQueuedOrTimesOutAtOnce() {
        assertEquals(Handed.Outcome.TIMED_OUT, now(handOff.take(List.of("k"), Duration.ZERO)).outcome());
        assertEquals(0, handOff.waiting("k"));

        handOff.offer("k", "a");
        assertEquals(taken("k", "a"), now(handOff.take(List.of("k"), Duration.ZERO)));
    }

    @Test
    void aTakeForEverOutwaitsAnyClock() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("k"), HandOff.FOREVER);

        timer.advance(Long.MAX_VALUE / 2);
        timer.advance(Long.MAX_VALUE / 2);

        assertFalse(take.isDone());
        handOff.offer("k", "a");
        assertEquals(taken("k", "a"), now(take));
    }

    @Test
    void aTakerTakesFromTheUsersOwnStoreWhenOffered() {
        Map<String, ArrayDeque<String>> store = new ConcurrentHashMap<>();
        HandOff.Taker<String, String> fromStore = key -> {
            ArrayDeque<String> items = store.get(key);
            return items == null ? null : items.pollFirst();
        };
        CompletableFuture<Handed<String, String>> first = handOff.take(List.of("k"), TIMEOUT, fromStore);
        CompletableFuture<Handed<String, String>> second = handOff.take(List.of("k"), TIMEOUT, fromStore);

        store.computeIfAbsent("k", k -> new ArrayDeque<>()).add("a");
        handOff.offered("k");

        assertEquals(taken("k", "a"), now(first));
        assertFalse(second.isDone());
        assertEquals(0, handOff.queued("k"), "nothing in the built-in queue");
        store.get("k").add("b");
        CompletableFuture<Handed<String, String>> third = handOff.take(List.of("j", "k"), TIMEOUT, fromStore);
        assertFalse(third.isDone(), "an item added to the store, not yet offered, is left to the older waiter");
        handOff.offered("k");
        assertEquals(taken("k", "b"), now(second));
        assertFalse(third.isDone());
    }

    @Test
    void aDependentStageMayOfferToTheHandOff() {
        CompletableFuture<Handed<String, String>> moved = handOff.take(List.of("to"), TIMEOUT);
        handOff.take(List.of("from"), TIMEOUT).thenAccept(h -> handOff.offer("to", h.item()));

        handOff.offer("from", "a");

        assertEquals(taken("to", "a"), now(moved));
    }

    @Test
    void aBlockingTakeWaitsForAnItem() throws Exception {
        AtomicReference<Handed<String, String>> got = new AtomicReference<>();
        Thread taker = new Thread(() -> {
            try {
                got.set(handOff.takeBlocking(List.of("k"), HandOff.FOREVER));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        taker.start();
        await().until(() -> handOff.waiting("k") == 1);

        handOff.offer("k", "a");

        taker.join();
        assertEquals(taken("k", "a"), got.get());
    }

    @Test
    void anInterruptedBlockingTakeTakesNothing() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread taker = new Thread(() -> {
            try {
                handOff.takeBlocking(List.of("k"), HandOff.FOREVER);
            } catch (InterruptedException e) {
                thrown.set(e);
            }
        });
        taker.start();
        await().until(() -> handOff.waiting("k") == 1);

        taker.interrupt();
        taker.join();

        assertTrue(thrown.get() instanceof InterruptedException);
        assertEquals(0, handOff.waiting("k"));
        handOff.offer("k", "a");
        assertEquals(1, handOff.queued("k"));
    }

    @Test
    void aBlockingTakeTimesOutOnTheTimer() throws Exception {
        AtomicReference<Handed<String, String>> got = new AtomicReference<>();
        Thread taker = new Thread(() -> {
            try {
                got.set(handOff.takeBlocking(List.of("k"), TIMEOUT));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        taker.start();
        // its expiry in the timer too: the offer counts the waiter before it schedules the expiry, and
        // a timer advanced in between would leave the taker waiting for good
        await().until(() -> handOff.waiting("k") == 1 && timer.size() == 1);

        timer.advance(100);

        taker.join();
        assertEquals(Handed.Outcome.TIMED_OUT, got.get().outcome());
    }

    @Test
    void badInputIsRefusedAndChangesNothing() {
        assertThrows(IllegalArgumentException.class, () -> handOff.take(List.of(), TIMEOUT));
        assertThrows(IllegalArgumentException.class, () -> handOff.take(List.of("k"), Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> handOff.offer("k", null));
        assertThrows(NullPointerException.class, () -> handOff.offer(null, "a"));
        assertEquals(0, handOff.queued("k"));
        assertEquals(0, handOff.waiting("k"));
    }

    @Test
    void aKeyWithNothingLeftHoldsNoMemory() {
        CompletableFuture<Handed<String, String>> take = handOff.take(List.of("a", "b"), TIMEOUT);
        handOff.offer("a", "x");
        handOff.offer("c", "y");
        handOff.poll(List.of("c"));
        take.join();
        assertEquals("HandOff[HandOffTest, keys 0, waiting 0]", handOff.toString());
    }
}
