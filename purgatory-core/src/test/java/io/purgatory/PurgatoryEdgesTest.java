package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The purgatory's edges, on a {@link MockTimer} without a reaper thread: the builder's checks, keys
 * given as any collection, the purge threshold exactly, a timer closed under the purgatory, two
 * purgatories of one name, its own timer closed with it, and what {@code toString} shows.
 */
class PurgatoryEdgesTest {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long DELAY_MS = 100;

    private final MockTimer timer = new MockTimer();

    @AfterEach
    void closeTimer() {
        timer.close();
    }

    private static String uniqueName() {
        return "PurgatoryEdgesTest-" + NAMES.incrementAndGet();
    }

    private DelayedOperationPurgatory<TestOperation> purgatory(int purgeInterval) {
        return DelayedOperationPurgatory.<TestOperation>builder(uniqueName())
                .timer(timer).reaperEnabled(false).purgeInterval(purgeInterval).build();
    }

    @Test
    void theBuilderRejectsBadArgumentsWithTheirNames() {
        assertEquals("name", assertThrows(NullPointerException.class,
                () -> DelayedOperationPurgatory.builder(null)).getMessage());
        var builder = DelayedOperationPurgatory.<TestOperation>builder(uniqueName());
        assertEquals("timer", assertThrows(NullPointerException.class, () -> builder.timer(null)).getMessage());
        assertEquals("purgeInterval must not be negative: -1",
                assertThrows(IllegalArgumentException.class, () -> builder.purgeInterval(-1)).getMessage());
        builder.purgeInterval(0).timer(timer).reaperEnabled(false).build().close();
    }

    @Test
    void keysMayBeAnyCollectionAndEachIsWatched() {
        try (var purgatory = purgatory(1000)) {
            TestOperation viaSet = new TestOperation(DELAY_MS);
            assertFalse(purgatory.tryCompleteElseWatch(viaSet, new LinkedHashSet<>(List.of("a", "b"))));
            TestOperation viaLinkedList = new TestOperation(DELAY_MS);
            assertFalse(purgatory.tryCompleteElseWatch(viaLinkedList, new LinkedList<>(List.of("b", "c"))));
            assertEquals(4, purgatory.watched());
            viaSet.setReady(true);
            viaLinkedList.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("a"));
            assertEquals(1, purgatory.checkAndComplete("c"));
            assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), new LinkedList<>(java.util.Arrays.asList("d", null))));
            assertEquals(0, purgatory.checkAndComplete("d"), "an offer with a null key links nothing");
        }
    }

    @Test
    void aPurgeRunsOnceTheTombstonesExceedThePurgeIntervalNotWhenTheyReachIt() {
        try (var purgatory = purgatory(2)) {
            TestOperation[] ops = new TestOperation[3];
            for (int i = 0; i < ops.length; i++) {
                ops[i] = new TestOperation(DELAY_MS);
                purgatory.tryCompleteElseWatch(ops[i], List.of("key"));
            }
            assertEquals(3, purgatory.watched());
            ops[0].forceComplete();
            ops[1].forceComplete();
            assertEquals(3, purgatory.watched(), "two tombstones, interval 2: no purge yet");
            assertEquals(0, purgatory.metrics().purged());
            ops[2].forceComplete();
            assertEquals(0, purgatory.watched(), "three: every tombstone is purged");
            assertEquals(3, purgatory.metrics().purged());
        }
    }

    @Test
    void aTimerClosedUnderAnOpenPurgatoryExpiresTheOfferAndSaysSo() {
        try (var purgatory = purgatory(1000)) {
            timer.close();
            TestOperation op = new TestOperation(DELAY_MS);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> purgatory.tryCompleteElseWatch(op, List.of("a")));
            assertEquals("MockTimer is closed", e.getMessage());
            assertSame(Completion.CLOSED, op.completion(), "answered, not stranded");
            assertEquals(1, op.expirations.get());
            assertEquals(0, purgatory.numDelayed());
        }
    }

    @Test
    void aSecondPurgatoryOfTheSameNameWorksWithoutJmxAndLeavesTheFirstRegistered() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String name = uniqueName();
        javax.management.ObjectName objectName;
        try (var first = DelayedOperationPurgatory.<TestOperation>builder(name).timer(timer).reaperEnabled(false).build()) {
            try (var second = DelayedOperationPurgatory.<TestOperation>builder(name).timer(timer).reaperEnabled(false).build()) {
                TestOperation op = new TestOperation(DELAY_MS);
                op.setReady(true);
                assertTrue(second.tryCompleteElseWatch(op, List.of("a")));
                assertEquals(1, second.metrics().completed());
            }
            objectName = first.metrics().objectName();
            assertTrue(server.isRegistered(objectName), "closing the second does not unregister the first's");
        }
        assertFalse(server.isRegistered(objectName), "closing the first does");
    }

    @Test
    void aPurgatoryClosesTheTimerItMadeAndNotOneItWasGiven() {
        var own = DelayedOperationPurgatory.<TestOperation>builder(uniqueName()).reaperEnabled(false).build();
        var ownTimer = own.timer();
        own.close();
        assertThrows(IllegalStateException.class, () -> ownTimer.schedule(() -> { }, 1), "its own timer is closed");

        purgatory(1000).close();
        timer.schedule(() -> { }, 1); // the given one is not
        assertEquals(1, timer.size());
    }

    @Test
    void toStringShowsTheNameAndWhatWaits() {
        try (var purgatory = purgatory(1000)) {
            purgatory.tryCompleteElseWatch(new TestOperation(DELAY_MS), List.of("a", "b"));
            assertEquals("DelayedOperationPurgatory[" + purgatory.name() + ", delayed 1, watched 2]", purgatory.toString());
        }
    }

    @Test
    void positionsMustNameAtLeastOneKeyEachWithAPosition() {
        try (var purgatory = purgatory(1000)) {
            assertEquals("positions must map at least one key to a position", assertThrows(IllegalArgumentException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(new TestOperation(DELAY_MS), Map.of())).getMessage());
            Map<String, Long> withNull = new java.util.HashMap<>();
            withNull.put("a", null);
            assertEquals("positions: the position of key a", assertThrows(NullPointerException.class,
                    () -> purgatory.tryCompleteElseWatchPositions(new TestOperation(DELAY_MS), withNull)).getMessage());
            assertEquals(0, purgatory.advance("unwatched", 10));
            assertEquals(0, purgatory.watched());
        }
    }

    @Test
    void aKeyWhoseWatchesAllWentIsUnmappedByCheckAndCompleteAndByAPurge() {
        try (var purgatory = purgatory(1)) {
            TestOperation checked = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(checked, List.of("checked"));
            TestOperation other = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(other, List.of("other"));
            assertEquals(2, purgatory.watchedKeys());
            checked.setReady(true);
            assertEquals(1, purgatory.checkAndComplete("checked"));
            assertEquals(1, purgatory.watchedKeys(), "the emptied key is unmapped");
            assertEquals(0, purgatory.checkAndComplete("other"));
            assertEquals(1, purgatory.watchedKeys(), "a key still watched stays");

            TestOperation a = new TestOperation(DELAY_MS);
            TestOperation b = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(a, List.of("purged"));
            purgatory.tryCompleteElseWatch(b, List.of("purged"));
            a.forceComplete();
            other.forceComplete();
            assertEquals(1, purgatory.watchedKeys(), "two tombstones past an interval of 1: the purge unmapped \"other\"");
            b.forceComplete();
            assertEquals(1, purgatory.watchedKeys(), "one tombstone: no purge yet");
            TestOperation c = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(c, List.of("again"));
            c.forceComplete();
            assertEquals(0, purgatory.watchedKeys(), "the purge unmapped both");
        }
    }

    @Test
    void theOfferSaysWhetherItCompletedTheOperation() {
        try (var purgatory = purgatory(1000)) {
            TestOperation cancelled = new TestOperation(DELAY_MS);
            cancelled.cancel();
            assertFalse(purgatory.tryCompleteElseWatch(cancelled, List.of("a")), "completed before, not by the offer");
            TestOperation ready = new TestOperation(DELAY_MS);
            ready.setReady(true);
            assertTrue(purgatory.tryCompleteElseWatchPositions(ready, Map.of("a", 5L)));
            assertTrue(purgatory.tryCompleteElseWatchPosition(new ReadyOperation(), "a", 5));
            assertFalse(purgatory.tryCompleteElseWatchPositions(new TestOperation(DELAY_MS), Map.of("a", 5L)));
        }
    }

    /** An operation whose condition holds from the start. */
    private static final class ReadyOperation extends TestOperation {
        ReadyOperation() {
            super(DELAY_MS);
            setReady(true);
        }
    }

    @Test
    void aWithdrawnOperationIsLeftUnlockedForAnyThreadToComplete() throws Exception {
        try (var purgatory = purgatory(1000)) {
            TestOperation op = new TestOperation(DELAY_MS);
            purgatory.tryCompleteElseWatch(op, List.of("a"));
            assertEquals(List.of(op), purgatory.withdrawForKey("a"));
            assertTrue(java.util.concurrent.CompletableFuture.supplyAsync(op::forceComplete)
                    .get(30, java.util.concurrent.TimeUnit.SECONDS));
        }
    }

    @Test
    void aBridgeBuildsItsPurgatoryOfOperationStates() {
        try (DelayedOperationPurgatory<?> purgatory = DelayedOperationPurgatory.ofStates(uniqueName(), timer, 1000, false)) {
            TestOperation op = new TestOperation(DELAY_MS);
            assertFalse(purgatory.offerState(op, List.of("a")));
            timer.advance(DELAY_MS);
            assertSame(Completion.EXPIRED, op.completion());
        }
    }

    @Test
    void thePurgeReaperIsADaemonThreadThatCloseStops() {
        String name = uniqueName();
        var purgatory = DelayedOperationPurgatory.<TestOperation>builder(name).timer(timer).build();
        Thread reaper = reaperOf(name);
        assertTrue(reaper.isDaemon(), "it does not keep the JVM alive");
        purgatory.close();
        assertFalse(reaper.isAlive(), "close waits for it to end");
    }

    @Test
    void anInterruptedCloseStillClosesAndKeepsTheInterrupt() {
        var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName()).timer(timer).build();
        TestOperation op = new TestOperation(DELAY_MS);
        purgatory.tryCompleteElseWatch(op, List.of("a"));
        Thread.currentThread().interrupt();
        try {
            purgatory.close();
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertSame(Completion.CLOSED, op.completion());
    }

    private static Thread reaperOf(String purgatoryName) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(purgatoryName + "-purge-reaper"))
                .findFirst().orElseThrow();
    }

    /**
     * An offer whose first try runs while {@code close()} sweeps the lists links its watch after the
     * sweep: the offer itself must answer the operation, take the list it linked into, and rethrow
     * what its second try threw.
     */
    @Test
    void anOfferOverlappingCloseTakesTheListItLinkedAndRethrowsItsTrysException() throws Exception {
        var purgatory = purgatory(1000);
        TestOperation op = new TestOperation(DELAY_MS);
        java.util.concurrent.CountDownLatch inFirstTry = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        IllegalStateException boom = new IllegalStateException("second try");
        op.duringTry = () -> {
            if (op.tries.get() == 1) {
                inFirstTry.countDown();
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            } else {
                throw boom;
            }
        };
        var offer = java.util.concurrent.CompletableFuture.supplyAsync(() -> purgatory.tryCompleteElseWatch(op, List.of("a")));
        inFirstTry.await();
        purgatory.close();
        closed.countDown();
        var thrown = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> offer.get(30, java.util.concurrent.TimeUnit.SECONDS));
        assertSame(boom, thrown.getCause());
        assertSame(Completion.CLOSED, op.completion(), "answered by the offer");
        assertEquals(0, purgatory.watchedKeys(), "the list linked after the sweep was taken");
        assertEquals(0, purgatory.watched());
    }
}
