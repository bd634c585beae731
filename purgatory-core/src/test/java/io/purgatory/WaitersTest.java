package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The three forms of {@link Waiters} one case at a time, on a {@link MockTimer}: what each wait
 * answers, and that a wait that ends, however it ends, leaves nothing in the purgatory.
 */
class WaitersTest {

    private static final Duration TIMEOUT = Duration.ofMillis(100);

    private final MockTimer timer = new MockTimer();
    /** The keys' positions, as the server keeps them. */
    private final Map<String, Long> positions = new ConcurrentHashMap<>();
    /** Reads of the position function left before one throws; negative: none throws. A store that fails once. */
    private final AtomicInteger readsBeforeFailure = new AtomicInteger(-1);
    /** How many times the position function was read. */
    private final AtomicInteger reads = new AtomicInteger();
    private final Waiters<String> waiters = new Waiters<>(
            DelayedOperationPurgatory.builder("WaitersTest").timer(timer).purgeInterval(0).reaperEnabled(false),
            key -> {
                reads.incrementAndGet();
                if (readsBeforeFailure.getAndDecrement() == 0) {
                    throw new IllegalStateException("position unavailable");
                }
                return positions.getOrDefault(key, 0L);
            });

    @AfterEach
    void close() {
        waiters.close();
        timer.close();
    }

    @Test
    void aFutureIsReachedWhenAnAdvancePassesItsPosition() {
        CompletableFuture<WaitOutcome> wait = waiters.waitFor("k", 5, TIMEOUT);
        positions.put("k", 4L);
        assertEquals(0, waiters.advance("k"));
        assertFalse(wait.isDone());

        positions.put("k", 5L);
        assertEquals(1, waiters.advance("k"));

        assertEquals(WaitOutcome.REACHED, wait.getNow(null));
        assertNothingLeft();
    }

    @Test
    void aPositionAlreadyReachedAnswersAtOnce() {
        positions.put("k", 7L);
        assertEquals(WaitOutcome.REACHED, waiters.waitFor("k", 7, TIMEOUT).getNow(null));
        assertNothingLeft();
    }

    @Test
    void aFutureTimesOutAtItsDeadline() {
        CompletableFuture<WaitOutcome> wait = waiters.waitFor("k", 1, TIMEOUT);
        timer.advance(TIMEOUT.toMillis() - 1);
        assertFalse(wait.isDone());
        timer.advance(1);
        assertEquals(WaitOutcome.TIMED_OUT, wait.getNow(null));
        assertNothingLeft();
    }

    @Test
    void cancellingTheFutureRemovesTheWaitAtOnceAndItNeverExpires() {
        CompletableFuture<WaitOutcome> wait = waiters.waitFor("k", 1, TIMEOUT);
        assertEquals(1, waiters.metrics().delayed());
        assertEquals(1, timer.size());

        assertTrue(wait.cancel(false));

        assertNothingLeft();
        assertEquals(0, timer.size(), "its expiry is gone from the timer");
        timer.advance(TIMEOUT.toMillis());
        assertEquals(0, waiters.metrics().expired());
        assertTrue(wait.isCancelled());
    }

    @Test
    void completingTheFutureYourselfRemovesTheWaitToo() {
        CompletableFuture<WaitOutcome> timedOutByCaller = waiters.waitFor("k", 1, TIMEOUT);
        CompletableFuture<WaitOutcome> answeredByCaller = waiters.waitFor("k", 2, TIMEOUT);

        timedOutByCaller.completeExceptionally(new TimeoutException("the caller's own timeout"));
        answeredByCaller.complete(WaitOutcome.TIMED_OUT);

        assertNothingLeft();
        assertEquals(0, timer.size());
    }

    @Test
    void everyWayOfCompletingTheFutureYourselfRemovesTheWaitAtOnce() {
        Map<String, Consumer<CompletableFuture<WaitOutcome>>> completions = new LinkedHashMap<>();
        completions.put("complete", f -> f.complete(WaitOutcome.TIMED_OUT));
        completions.put("completeExceptionally", f -> f.completeExceptionally(new TimeoutException("own timeout")));
        completions.put("completeAsync", f -> f.completeAsync(() -> WaitOutcome.TIMED_OUT, Runnable::run));
        completions.put("completeAsync, the supplier throws", f -> f.completeAsync(() -> {
            throw new IllegalStateException("no value");
        }, Runnable::run));
        completions.put("completeAsync on the default executor", f -> f.completeAsync(() -> WaitOutcome.TIMED_OUT).join());
        completions.put("obtrudeValue", f -> f.obtrudeValue(WaitOutcome.TIMED_OUT));
        completions.put("obtrudeException", f -> f.obtrudeException(new IllegalStateException("obtruded")));
        completions.put("cancel", f -> f.cancel(false));
        completions.put("completeOnTimeout", f -> f.completeOnTimeout(WaitOutcome.TIMED_OUT, 0, TimeUnit.MILLISECONDS));
        completions.put("orTimeout", f -> f.orTimeout(0, TimeUnit.MILLISECONDS));

        completions.forEach((how, completion) -> {
            CompletableFuture<WaitOutcome> wait = waiters.waitFor("k", 1, TIMEOUT);
            assertEquals(1, waiters.metrics().delayed(), how);

            completion.accept(wait);

            await().untilAsserted(() -> assertEquals(0, waiters.metrics().delayed(), how + ": waits pending"));
            assertEquals(0, waiters.metrics().watched(), how + ": watches linked");
            assertEquals(0, timer.size(), how + ": its expiry is gone from the timer");
            assertTrue(wait.isDone(), how);
        });
        timer.advance(TIMEOUT.toMillis());
        assertEquals(0, waiters.metrics().expired(), "no wait completed by its caller counts as expired");
    }

    @Test
    void anAdvanceWhosePositionFunctionThrowsLeavesTheWaitForTheNextAdvance() {
        for (int failingRead = 1; failingRead <= 2; failingRead++) { // advance's own read, then a read per wait if any
            String key = "k" + failingRead;
            CompletableFuture<WaitOutcome> wait = waiters.waitFor(key, 5, TIMEOUT);
            positions.put(key, 5L);
            readsBeforeFailure.set(failingRead - 1);

            try {
                waiters.advance(key);
            } catch (IllegalStateException positionUnavailable) {
                assertEquals("position unavailable", positionUnavailable.getMessage());
                assertFalse(wait.isDone(), "an advance that threw answered nothing");
                assertEquals(1, waiters.advance(key), "the next advance answers it");
            }
            readsBeforeFailure.set(-1);

            assertEquals(WaitOutcome.REACHED, wait.getNow(null), "read " + failingRead + " failed");
        }
        assertNothingLeft();
    }

    @Test
    void anAdvanceReadsThePositionOnceNotOncePerWait() {
        CompletableFuture<WaitOutcome> first = waiters.waitFor("k", 1, TIMEOUT);
        CompletableFuture<WaitOutcome> second = waiters.waitFor("k", 2, TIMEOUT);
        positions.put("k", 2L);
        reads.set(0);

        assertEquals(2, waiters.advance("k"));

        assertEquals(1, reads.get());
        assertEquals(WaitOutcome.REACHED, first.getNow(null));
        assertEquals(WaitOutcome.REACHED, second.getNow(null));
    }

    @Test
    void waitForWhosePositionFunctionThrowsRethrowsAndLeavesNothingBehind() {
        readsBeforeFailure.set(0);

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> waiters.waitFor("k", 5, TIMEOUT));

        assertEquals("position unavailable", thrown.getMessage());
        assertNothingLeft();
        assertEquals(0, timer.size(), "no expiry left in the timer");
        positions.put("k", 5L);
        assertEquals(0, waiters.advance("k"));
        assertEquals(WaitOutcome.REACHED, waiters.waitFor("k", 5, TIMEOUT).getNow(null), "the function recovered");
    }

    @Test
    void awaitWhosePositionFunctionThrowsRethrowsAndLeavesNothingBehind() {
        readsBeforeFailure.set(0);

        assertThrows(IllegalStateException.class, () -> waiters.await("k", 5, TIMEOUT));

        assertNothingLeft();
        assertEquals(0, timer.size(), "no expiry left in the timer");
    }

    @Test
    void aFutureCancelledAfterItWasAnsweredKeepsItsAnswer() {
        CompletableFuture<WaitOutcome> wait = waiters.waitFor("k", 1, TIMEOUT);
        positions.put("k", 1L);
        waiters.advance("k");
        assertFalse(wait.cancel(false));
        assertEquals(WaitOutcome.REACHED, wait.getNow(null));
    }

    @Test
    void cancellingAKeyAnswersItsWaitsCancelled() {
        CompletableFuture<WaitOutcome> first = waiters.waitFor("k", 1, TIMEOUT);
        CompletableFuture<WaitOutcome> second = waiters.waitFor("k", 9, TIMEOUT);
        CompletableFuture<WaitOutcome> other = waiters.waitFor("other", 1, TIMEOUT);

        assertEquals(2, waiters.cancel("k"));

        assertEquals(WaitOutcome.CANCELLED, first.getNow(null));
        assertEquals(WaitOutcome.CANCELLED, second.getNow(null));
        assertFalse(other.isDone());
        assertEquals(1, waiters.metrics().delayed());
    }

    @Test
    void closeAnswersEveryWaitClosedAndLaterWaitsAtOnce() {
        CompletableFuture<WaitOutcome> future = waiters.waitFor("k", 1, TIMEOUT);
        CompletableFuture<WaitOutcome> all = waiters.waitForAll(List.of(new CompletableFuture<>()), TIMEOUT);

        waiters.close();

        assertEquals(WaitOutcome.CLOSED, future.getNow(null));
        assertEquals(WaitOutcome.CLOSED, all.getNow(null));
        assertEquals(WaitOutcome.CLOSED, waiters.waitFor("k", 1, TIMEOUT).getNow(null));
        assertEquals(0, waiters.metrics().delayed());
    }

    @Test
    void awaitReturnsOnceAnotherThreadAdvances() throws Exception {
        AtomicReference<WaitOutcome> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> outcome.set(awaitQuietly("k", 3, Duration.ofHours(1))));
        caller.start();
        await().until(() -> waiters.metrics().delayed() == 1);

        positions.put("k", 3L);
        waiters.advance("k");

        caller.join();
        assertEquals(WaitOutcome.REACHED, outcome.get());
        assertNothingLeft();
    }

    @Test
    void awaitTimesOutOnTheTimer() throws Exception {
        AtomicReference<WaitOutcome> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> outcome.set(awaitQuietly("k", 3, TIMEOUT)));
        caller.start();
        // its expiry in the timer too: the offer counts the wait delayed before it schedules the expiry,
        // and a timer advanced in between would leave the caller waiting for an hour
        await().until(() -> waiters.metrics().delayed() == 1 && timer.size() == 1);

        timer.advance(TIMEOUT.toMillis());

        caller.join();
        assertEquals(WaitOutcome.TIMED_OUT, outcome.get());
    }

    @Test
    void awaitAnswersAtOnceWhenReachedOrClosed() throws InterruptedException {
        positions.put("k", 3L);
        assertEquals(WaitOutcome.REACHED, waiters.await("k", 3, TIMEOUT));
        waiters.close();
        assertEquals(WaitOutcome.CLOSED, waiters.await("k", 4, TIMEOUT));
    }

    @Test
    void anInterruptedAwaitThrowsAndLeavesNothingBehind() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                waiters.await("k", 3, Duration.ofHours(1));
            } catch (InterruptedException e) {
                thrown.set(e);
            }
        });
        caller.start();
        await().until(() -> waiters.metrics().delayed() == 1);

        caller.interrupt();

        caller.join();
        assertTrue(thrown.get() instanceof InterruptedException);
        assertNothingLeft();
        assertEquals(0, timer.size());
    }

    @Test
    void anAwaitBegunInterruptedThrowsWithoutWaiting() {
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> waiters.await("k", 3, TIMEOUT));
        assertEquals(0, waiters.metrics().delayed());
    }

    @Test
    void waitForAllIsReachedWhenEveryFutureCompletesHoweverItCompletes() {
        CompletableFuture<String> normal = new CompletableFuture<>();
        CompletableFuture<String> failing = new CompletableFuture<>();
        CompletableFuture<String> cancelled = new CompletableFuture<>();
        CompletableFuture<WaitOutcome> all = waiters.waitForAll(List.of(normal, failing, cancelled), TIMEOUT);

        normal.complete("done");
        failing.completeExceptionally(new IllegalStateException("failed"));
        assertFalse(all.isDone());
        cancelled.cancel(false);

        assertEquals(WaitOutcome.REACHED, all.getNow(null));
        assertNothingLeft();
    }

    @Test
    void waitForAllOfCompletedOrNoFuturesAnswersAtOnce() {
        assertEquals(WaitOutcome.REACHED, waiters.waitForAll(List.of(), TIMEOUT).getNow(null));
        assertEquals(WaitOutcome.REACHED,
                waiters.waitForAll(List.of(CompletableFuture.completedFuture(1)), TIMEOUT).getNow(null));
        assertNothingLeft();
    }

    @Test
    void waitForAllTimesOutAndLeavesTheFuturesAlone() {
        CompletableFuture<String> slow = new CompletableFuture<>();
        CompletableFuture<WaitOutcome> all = waiters.waitForAll(List.of(slow, CompletableFuture.completedFuture("x")), TIMEOUT);

        timer.advance(TIMEOUT.toMillis());

        assertEquals(WaitOutcome.TIMED_OUT, all.getNow(null));
        assertFalse(slow.isDone(), "not cancelled: the caller owns it");
        slow.complete("late");
        assertEquals(WaitOutcome.TIMED_OUT, all.getNow(null));
        assertNothingLeft();
    }

    @Test
    void cancellingWaitForAllRemovesItAtOnce() {
        CompletableFuture<WaitOutcome> all = waiters.waitForAll(List.of(new CompletableFuture<>()), TIMEOUT);
        all.cancel(true);
        assertNothingLeft();
        assertEquals(0, timer.size());
    }

    @Test
    void aNegativeTimeoutIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> waiters.waitFor("k", 1, Duration.ofMillis(-1)));
        assertEquals(0, waiters.metrics().delayed());
    }

    private WaitOutcome awaitQuietly(String key, long position, Duration timeout) {
        try {
            return waiters.await(key, position, timeout);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Neither waiting nor watched: with purgeInterval 0, a completed wait's tombstones are purged at once. */
    private void assertNothingLeft() {
        assertEquals(0, waiters.metrics().delayed(), "waits pending");
        assertEquals(0, waiters.metrics().watched(), "watches linked");
    }
}
