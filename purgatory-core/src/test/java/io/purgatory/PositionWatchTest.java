package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Position watches: {@code tryCompleteElseWatchPosition(op, key, position)}, its map form, and
 * {@code advance(key, position)}, which tries the operations waiting at or below the position,
 * lowest first, and no others; with what the purgatory promises for every watch (exactly once,
 * nothing reachable after completion, tombstones removed, cancel, close, metrics).
 *
 * <p>Time is a {@link MockTimer} and there is no reaper thread, so every outcome is known when a call
 * returns. An operation's condition is a flag the test sets ({@link TestOperation#setReady}): a
 * ready operation completes when it is tried, so which operations completed shows which were tried,
 * and {@link TestOperation#tries} shows it for the rest.
 */
class PositionWatchTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final long DELAY_MS = 1_000;

    private final MockTimer timer = new MockTimer();

    @AfterEach
    void closeTimer() {
        timer.close();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory(int purgeInterval) {
        return DelayedOperationPurgatory.<TestOperation>builder("PositionWatchTest-" + PURGATORIES.incrementAndGet())
                .timer(timer)
                .reaperEnabled(false)
                .purgeInterval(purgeInterval)
                .build();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory() {
        return purgatory(1000);
    }

    /** Offers a not-yet-ready operation waiting on key at position; it is parked. */
    private static TestOperation park(DelayedOperationPurgatory<TestOperation> purgatory, Object key, long position) {
        TestOperation op = new TestOperation(DELAY_MS);
        assertFalse(purgatory.tryCompleteElseWatchPosition(op, key, position));
        return op;
    }

    // --- advance ---

    @Test
    void advanceCompletesOnlyOperationsAtOrBelowThePositionLowestFirst() {
        try (var purgatory = purgatory()) {
            List<Long> order = new CopyOnWriteArrayList<>();
            Map<TestOperation, Long> positions = new LinkedHashMap<>();
            for (long position : new long[] {20, 10, 30, 20, 5, 40}) { // out of order on purpose
                TestOperation op = park(purgatory, "p0", position);
                op.duringComplete = () -> order.add(position);
                positions.put(op, position);
            }
            positions.keySet().forEach(op -> op.setReady(true));

            assertEquals(4, purgatory.advance("p0", 20));

            assertEquals(List.of(5L, 10L, 20L, 20L), order);
            positions.forEach((op, position) -> {
                assertEquals(position <= 20, op.isCompleted(), "at " + position);
                if (position > 20) {
                    assertEquals(2, op.tries.get(), "tried only by its offer, never by the advance: " + position);
                }
            });
            assertEquals(2, purgatory.numDelayed());
            assertEquals(2, purgatory.advance("p0", 40));
            assertEquals(List.of(5L, 10L, 20L, 20L, 30L, 40L), order);
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void advanceBelowEveryWatchedPositionTriesNothing() {
        try (var purgatory = purgatory()) {
            TestOperation op = park(purgatory, "p0", 100);
            op.setReady(true);

            assertEquals(0, purgatory.advance("p0", 99));
            assertEquals(0, purgatory.advance("p0", Long.MIN_VALUE));
            assertEquals(0, purgatory.advance("unknown", Long.MAX_VALUE));

            assertEquals(2, op.tries.get());
            assertFalse(op.isCompleted());
            assertEquals(1, purgatory.advance("p0", 100));
        }
    }

    @Test
    void positionsAtTheExtremesOfLongAreOrdered() {
        try (var purgatory = purgatory()) {
            TestOperation max = park(purgatory, "p0", Long.MAX_VALUE);
            TestOperation min = park(purgatory, "p0", Long.MIN_VALUE);
            TestOperation zero = park(purgatory, "p0", 0);
            List.of(max, min, zero).forEach(op -> op.setReady(true));

            assertEquals(1, purgatory.advance("p0", Long.MIN_VALUE));
            assertTrue(min.isCompleted());
            assertEquals(1, purgatory.advance("p0", Long.MAX_VALUE - 1));
            assertTrue(zero.isCompleted());
            assertFalse(max.isCompleted());
            assertEquals(1, purgatory.advance("p0", Long.MAX_VALUE));
        }
    }

    @Test
    void operationThatAnAdvanceDoesNotCompleteIsLeftToCheckAndCompleteOnThatKey() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            Map<String, Long> positions = new LinkedHashMap<>();
            positions.put("p0", 10L);
            positions.put("p1", 50L);
            assertFalse(purgatory.tryCompleteElseWatchPositions(op, positions));
            assertEquals(2, op.tries.get());
            assertEquals(2, purgatory.watched(), "one watch per key");

            assertEquals(0, purgatory.advance("p0", 10)); // p0 is there; p1 is not: not ready
            assertEquals(3, op.tries.get());
            assertEquals(0, purgatory.advance("p0", 1_000));
            assertEquals(3, op.tries.get(), "a later advance on p0 does not try it again");
            assertEquals(2, purgatory.watched(), "still watching p0, as the keys form would");

            assertEquals(0, purgatory.checkAndComplete("p0"));
            assertEquals(4, op.tries.get(), "checkAndComplete on p0 still tries it");

            op.setReady(true);
            assertEquals(0, purgatory.advance("p1", 49));
            assertEquals(1, purgatory.advance("p1", 50));
            assertEquals(1, op.completions.get());
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void checkAndCompleteTriesOperationsWatchingAtAnyPositionAndWithoutOne() {
        try (var purgatory = purgatory()) {
            TestOperation high = park(purgatory, "p0", 1_000_000);
            TestOperation low = park(purgatory, "p0", 1);
            TestOperation keysOnly = new TestOperation(DELAY_MS);
            assertFalse(purgatory.tryCompleteElseWatch(keysOnly, List.of("p0")));
            List.of(high, low, keysOnly).forEach(op -> op.setReady(true));

            assertEquals(3, purgatory.checkAndComplete("p0"));

            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.advance("p0", Long.MAX_VALUE), "completed operations are not tried again");
        }
    }

    @Test
    void operationOfferedAtAPositionAlreadyReachedCompletesOnItsFirstTry() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            op.setReady(true);

            assertTrue(purgatory.tryCompleteElseWatchPosition(op, "p0", 5));

            assertEquals(0, purgatory.watched());
            assertEquals(0, timer.size(), "never scheduled");
        }
    }

    /**
     * A model check: seeded random sequences of offers at random positions (mostly increasing, as
     * offsets are, sometimes not), advances, expiries and completions through another path, against
     * the obvious model: after {@code advance(key, p)} every live operation waiting at or below p was
     * tried and none above it was.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234, 99_999})
    void advanceAgreesWithAModelOverRandomSequences(long seed) {
        Random random = new Random(seed);
        try (var purgatory = purgatory(random.nextInt(50))) {
            List<String> keys = List.of("p0", "p1", "p2");
            Map<String, Long> next = new HashMap<>();
            Map<String, Long> reached = new HashMap<>();
            Map<TestOperation, Object[]> live = new HashMap<>(); // op -> {key, position}
            List<TestOperation> all = new ArrayList<>();
            for (int step = 0; step < 3_000; step++) {
                String key = keys.get(random.nextInt(keys.size()));
                int action = random.nextInt(10);
                if (action < 5) {
                    long base = next.getOrDefault(key, 0L);
                    long position = random.nextInt(8) == 0 ? base - random.nextInt(50) : base + random.nextInt(3);
                    next.put(key, Math.max(base, position));
                    TestOperation op = new TestOperation(1 + random.nextInt(200));
                    op.setReady(true);
                    if (position <= reached.getOrDefault(key, Long.MIN_VALUE)) {
                        assertTrue(purgatory.tryCompleteElseWatchPosition(op, key, position));
                        continue;
                    }
                    op.setReady(false);
                    assertFalse(purgatory.tryCompleteElseWatchPosition(op, key, position));
                    op.setReady(true);
                    live.put(op, new Object[] {key, position});
                    all.add(op);
                } else if (action < 8) {
                    long position = reached.getOrDefault(key, -100L) + random.nextInt(6);
                    reached.merge(key, position, Math::max);
                    Map<TestOperation, Integer> triesBefore = new HashMap<>();
                    live.keySet().forEach(op -> triesBefore.put(op, op.tries.get()));
                    purgatory.advance(key, position);
                    for (var it = live.entrySet().iterator(); it.hasNext(); ) {
                        var entry = it.next();
                        TestOperation op = entry.getKey();
                        boolean due = entry.getValue()[0].equals(key) && (long) entry.getValue()[1] <= position;
                        assertEquals(due, op.isCompleted(), "seed " + seed + " step " + step + " " + entry.getValue()[1]);
                        if (!due) {
                            assertEquals(triesBefore.get(op), op.tries.get(), "an operation not due was tried");
                        } else {
                            it.remove();
                        }
                    }
                } else if (action < 9) {
                    timer.advance(random.nextInt(20));
                    live.keySet().removeIf(TestOperation::isCompleted);
                } else if (!live.isEmpty()) {
                    TestOperation op = live.keySet().iterator().next();
                    assertTrue(op.forceComplete());
                    live.remove(op);
                }
                assertEquals(live.size(), purgatory.numDelayed(), "seed " + seed + " step " + step);
            }
            timer.advance(1_000);
            for (TestOperation op : all) {
                assertEquals(1, op.completions.get(), "exactly once: " + op);
            }
            assertEquals(0, purgatory.numDelayed());
        }
    }

    // --- memory ---

    @Test
    void expiredPositionWatchesLeaveNoTombstoneBehindInTheIndex() {
        try (var purgatory = purgatory(Integer.MAX_VALUE)) {
            for (int i = 0; i < 1_000; i++) {
                park(purgatory, "p" + (i % 3), i);
            }
            assertEquals(1_000, purgatory.watched());

            timer.advance(DELAY_MS);

            assertEquals(1_000, purgatory.metrics().expired());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.watched(), "an index removes its own tombstones, with no purge");
            assertEquals(0, purgatory.metrics().purged());
        }
    }

    @Test
    void indexNeverHoldsMoreTombstonesThanLiveWatches() {
        try (var purgatory = purgatory(Integer.MAX_VALUE)) {
            List<TestOperation> ops = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                ops.add(park(purgatory, "p0", i));
            }
            for (int i = 0; i < ops.size(); i++) {
                ops.get(i).forceComplete();
                int live = ops.size() - i - 1;
                assertTrue(purgatory.watched() <= 2 * live + 1, "watched " + purgatory.watched() + " with " + live + " live");
            }
            assertEquals(0, purgatory.watched());
        }
    }

    @Test
    void operationCompletedThroughAnAdvanceIsPurgedFromItsKeysOnlyList() {
        try (var purgatory = purgatory(0)) {
            TestOperation op = park(purgatory, "p0", 7);
            op.setReady(true);

            assertEquals(1, purgatory.advance("p0", 7));

            assertEquals(0, purgatory.watched());
        }
    }

    @Test
    void expiredPositionWatcherDoesNotKeepItsPayloadReachable() {
        try (var purgatory = purgatory(Integer.MAX_VALUE)) {
            park(purgatory, "p0", 1); // keeps the index non-empty and uncompacted
            park(purgatory, "p0", 2);
            park(purgatory, "p0", 3);
            WeakReference<Object> payload = parkWithPayloadAndExpireIt(purgatory);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                System.gc();
                return payload.get() == null;
            });
            assertEquals(3, purgatory.numDelayed());
        }
    }

    /** Keeps no strong reference to the operation or its payload once it returns. */
    private WeakReference<Object> parkWithPayloadAndExpireIt(DelayedOperationPurgatory<TestOperation> purgatory) {
        TestOperation op = new TestOperation(10);
        op.payload = new byte[16 << 20];
        WeakReference<Object> payload = new WeakReference<>(op.payload);
        Map<String, Long> positions = new LinkedHashMap<>();
        positions.put("p0", 100L);
        positions.put("p1", 100L);
        assertFalse(purgatory.tryCompleteElseWatchPositions(op, positions));
        timer.advance(10);
        assertTrue(op.isCompleted());
        assertNotNull(payload.get());
        return payload;
    }

    /**
     * An advance that takes every live watch out of an index, declined, leaves only the tombstones
     * there: the index drops them at once, so it never holds tombstones and nothing else.
     */
    @Test
    void anAdvanceThatLeavesOnlyTombstonesInTheIndexRemovesThem() {
        try (var purgatory = purgatory()) {
            TestOperation first = park(purgatory, "p0", 1);
            TestOperation second = park(purgatory, "p0", 2);
            TestOperation third = park(purgatory, "p0", 3);
            third.forceComplete();
            assertEquals(3, purgatory.watched(), "one tombstone among three: kept in the index");

            assertEquals(0, purgatory.advance("p0", 2), "both decline");

            assertEquals(2, purgatory.watched(), "the declined two are keys-only watches now; the tombstone is gone");
            first.setReady(true);
            second.setReady(true);
            assertEquals(2, purgatory.checkAndComplete("p0"));
            assertEquals(0, purgatory.watched());
        }
    }

    // --- cancel, close, metrics ---

    @Test
    void cancelForKeyCompletesPositionWatchersAndUnlinksThemEverywhere() {
        try (var purgatory = purgatory(0)) {
            TestOperation both = new TestOperation(DELAY_MS);
            Map<String, Long> positions = new LinkedHashMap<>();
            positions.put("p0", 10L);
            positions.put("p1", 10L);
            assertFalse(purgatory.tryCompleteElseWatchPositions(both, positions));
            TestOperation other = park(purgatory, "p1", 5);

            assertEquals(1, purgatory.cancelForKey("p0", "deleted"));

            assertEquals(Completion.CANCELLED, both.completion());
            assertEquals("deleted", both.cancelReason());
            assertEquals(List.of("onComplete"), both.events);
            assertEquals(1, purgatory.numDelayed());
            assertEquals(1, purgatory.watched(), "only other's watch is left");
            other.setReady(true);
            assertEquals(1, purgatory.advance("p1", 10));
            assertTrue(other.isCompleted());
            timer.advance(DELAY_MS);
            assertEquals(0, both.expirations.get(), "its expiry was cancelled");
        }
    }

    @Test
    void closeAnswersEveryPositionWatcher() {
        List<TestOperation> ops = new ArrayList<>();
        var purgatory = purgatory();
        for (int i = 0; i < 100; i++) {
            ops.add(park(purgatory, "p" + (i % 2), 100 - i));
        }
        ops.get(0).setReady(true);
        purgatory.advance("p0", 100); // one of them becomes a keys-only watch

        purgatory.close();

        for (TestOperation op : ops) {
            assertEquals(1, op.completions.get());
        }
        assertEquals(99, purgatory.metrics().expired());
        assertEquals(1, purgatory.metrics().completed());
        assertEquals(0, purgatory.watched());
        TestOperation late = new TestOperation(DELAY_MS);
        assertTrue(purgatory.tryCompleteElseWatchPosition(late, "p0", 1), "it completed during the call");
        assertEquals(1, late.expirations.get(), "offered after close: expired at once");
    }

    // --- failures ---

    @Test
    void advanceTriesEveryDueOperationEvenWhenOneThrows() {
        try (var purgatory = purgatory()) {
            TestOperation first = park(purgatory, "p0", 1);
            TestOperation failing = park(purgatory, "p0", 2);
            TestOperation last = park(purgatory, "p0", 3);
            RuntimeException boom = new IllegalStateException("boom");
            failing.duringTry = () -> {
                throw boom;
            };
            List.of(first, failing, last).forEach(op -> op.setReady(true));

            RuntimeException thrown = assertThrows(RuntimeException.class, () -> purgatory.advance("p0", 3));

            assertSame(boom, thrown);
            assertTrue(first.isCompleted());
            assertTrue(last.isCompleted(), "the operation after the failing one was tried too");
            assertFalse(failing.isCompleted());
            failing.duringTry = () -> { };
            assertEquals(1, purgatory.checkAndComplete("p0"), "the failing one is still watched, keys-only");
        }
    }

    @Test
    void badArgumentsAreRejectedByNameAndLinkNothing() {
        try (var purgatory = purgatory()) {
            TestOperation op = new TestOperation(DELAY_MS);
            Map<String, Long> nullPosition = new HashMap<>();
            nullPosition.put("p0", 1L);
            nullPosition.put("p1", null);
            Map<String, Long> nullKey = new HashMap<>();
            nullKey.put("p0", 1L);
            nullKey.put(null, 1L);

            assertEquals("key", assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatchPosition(op, null, 1)).getMessage(), "names the argument given");
            assertMessage("positions", assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(op, (Map<?, Long>) null)));
            assertMessage("positions", assertThrows(IllegalArgumentException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(op, Collections.emptyMap())));
            assertMessage("position of key p1", assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(op, nullPosition)));
            assertMessage("a key", assertThrows(NullPointerException.class, () -> purgatory.tryCompleteElseWatchPositions(op, nullKey)));
            assertMessage("operation", assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatchPosition(null, "p0", 1)));
            assertMessage("key", assertThrows(NullPointerException.class, () -> purgatory.advance(null, 1)));

            assertEquals(0, purgatory.watched());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, op.tries.get());
            assertFalse(purgatory.tryCompleteElseWatchPosition(op, "p0", 1), "the operation can still be offered");
            assertEquals(1, purgatory.numDelayed());
        }
    }

    private static void assertMessage(String expected, RuntimeException e) {
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' names " + expected);
    }

    @Test
    void metricsCountPositionWatchersLikeAnyOther() {
        try (var purgatory = purgatory()) {
            TestOperation completes = park(purgatory, "p0", 1);
            park(purgatory, "p0", 2);
            completes.setReady(true);

            purgatory.advance("p0", 1);
            timer.advance(DELAY_MS);

            assertEquals(1, purgatory.metrics().completed());
            assertEquals(1, purgatory.metrics().expired());
            assertEquals(1, purgatory.metrics().expiryLateness().count());
            assertEquals(0, purgatory.metrics().delayed());
        }
    }
}
