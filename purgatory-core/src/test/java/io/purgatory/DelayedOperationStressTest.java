package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.SystemTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Tries to break exactly-once under concurrency, on the real {@link SystemTimer}: many threads
 * completing, forcing and offering operations while the timer expires them and the purgatory purges
 * and closes. Work is bounded by counts, not by time; every test ends by checking each operation's
 * own record (one {@code onComplete}; at most one {@code onExpiration}, after it) against the
 * purgatory's metrics.
 *
 * <p>Runs in the normal build. Random choices are seeded; the seed is in every failure message.
 */
@Tag("stress")
class DelayedOperationStressTest {

    private static final AtomicInteger PURGATORIES = new AtomicInteger();
    private static final int THREADS = 4;
    private static final List<Key> KEYS = keys(16);

    /** A watch key, as a user would write one. */
    record Key(int id) {
    }

    private final long seed = System.nanoTime();
    /** The first exception that killed a thread, such as a purgatory's reaper, during the test. */
    private final AtomicReference<Throwable> threadDeath = new AtomicReference<>();
    private Thread.UncaughtExceptionHandler previousHandler;
    private String testName;
    private ExecutorService executor;

    @BeforeEach
    void setUp(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        executor = Executors.newCachedThreadPool();
        previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            threadDeath.compareAndSet(null, new AssertionError("thread " + thread.getName() + " died", e));
            if (previousHandler != null) {
                previousHandler.uncaughtException(thread, e);
            }
        });
    }

    @AfterEach
    void tearDown() throws Throwable {
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS), "test threads did not stop");
        Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        if (threadDeath.get() != null) {
            throw threadDeath.get();
        }
    }

    private String uniqueName() {
        return getClass().getSimpleName() + "-" + testName + "-" + PURGATORIES.incrementAndGet();
    }

    @Test
    void everyOperationCompletesExactlyOnceWhileThreadsCompleteAndTheTimerExpires() throws Exception {
        int total = 100_000;
        int window = 64; // threads flip conditions of operations offered around the same time
        Random random = new Random(seed);
        LongAdder overlaps = new LongAdder();
        TestOperation[] ops = new TestOperation[total];
        List<List<Key>> watchKeys = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            ops[i] = new TestOperation(random.nextInt(21), overlaps); // 0-20 ms
            watchKeys.add(randomKeys(random, 1 + random.nextInt(3)));
        }
        long startNanos = System.nanoTime();

        try (var purgatory = new DelayedOperationPurgatory<TestOperation>(uniqueName())) { // its own SystemTimer
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<Integer>> workers = new ArrayList<>();
            for (int w = 0; w < THREADS; w++) {
                int first = w;
                Random r = new Random(seed + w + 1);
                workers.add(executor.submit(() -> {
                    start.await();
                    int completedOnOffer = 0;
                    for (int i = first; i < total; i += THREADS) {
                        if (purgatory.tryCompleteElseWatch(ops[i], watchKeys.get(i))) {
                            completedOnOffer++;
                        }
                        // an operation near i, possibly another thread's and possibly not offered yet
                        int j = Math.min(total - 1, Math.max(0, i + r.nextInt(2 * window) - window));
                        if (r.nextBoolean()) {
                            ops[j].setReady(true);
                            List<Key> keys = watchKeys.get(j);
                            purgatory.checkAndComplete(keys.get(r.nextInt(keys.size())));
                        } else {
                            purgatory.checkAndComplete(KEYS.get(r.nextInt(KEYS.size())));
                        }
                    }
                    return completedOnOffer;
                }));
            }
            int completedOnOffer = 0;
            for (Future<Integer> worker : workers) {
                completedOnOffer += worker.get(60, TimeUnit.SECONDS);
            }
            PurgatoryMetrics metrics = purgatory.metrics();
            awaitAllFinished(metrics, ops);
            long wallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            Outcome outcome = checkEachCompletedOnce(ops);
            assertEquals(total, metrics.completed() + metrics.expired(), "finished operations" + seedInfo());
            System.out.printf("%s: %d operations in %d ms: %d completed (%d on offer), %d expired%n",
                    testName, total, wallMs, outcome.completed, completedOnOffer, outcome.expired);
            assertEquals(outcome.completed, metrics.completed(), "metrics().completed()" + seedInfo());
            assertEquals(outcome.expired, metrics.expired(), "metrics().expired()" + seedInfo());
            assertTrue(completedOnOffer <= outcome.completed);
            assertEquals(metrics.expired(), metrics.expiryLateness().count(), "every expiry here is the timer's");
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
            assertTrue(outcome.completed > 0 && outcome.expired > 0,
                    "both paths should have been exercised: " + outcome + seedInfo());
        }
    }

    @Test
    void exactlyOneOfManyConcurrentForceCompletesWins() throws Exception {
        int threads = 8;
        int iterations = 2_000;
        String name = uniqueName();
        TestOperation[] ops = new TestOperation[iterations];
        AtomicIntegerArray wins = new AtomicIntegerArray(iterations);
        try (var timer = new SystemTimer(name + "-timer");
             var purgatory = DelayedOperationPurgatory.<TestOperation>builder(name).timer(timer).build()) {
            for (int i = 0; i < iterations; i++) {
                ops[i] = new TestOperation(60_000);
                ops[i].duringComplete = DelayedOperationStressTest::spin; // the losers arrive while the winner is in onComplete
                assertFalse(purgatory.tryCompleteElseWatch(ops[i], List.of(KEYS.get(i % KEYS.size()))));
            }
            CyclicBarrier barrier = new CyclicBarrier(threads);
            List<Future<?>> racers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                racers.add(executor.submit(() -> {
                    for (int i = 0; i < iterations; i++) {
                        barrier.await();
                        if (ops[i].forceComplete()) {
                            wins.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> racer : racers) {
                racer.get(60, TimeUnit.SECONDS);
            }

            for (int i = 0; i < iterations; i++) {
                assertEquals(1, wins.get(i), "forceComplete calls that returned true, iteration " + i);
                assertEquals(1, ops[i].completions.get(), "onComplete calls, iteration " + i);
                assertEquals(0, ops[i].expirations.get());
            }
            assertEquals(iterations, purgatory.metrics().completed());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, timer.size(), "forceComplete must cancel the timer task");
        }
    }

    /**
     * An operation cancelled on another thread is counted completed before it stops counting as
     * delayed: a reader that sees {@code numDelayed()} drop to 0 sees it counted, never in neither
     * count (a monitor, or a test that waits for the purgatory to drain, reads them in that order).
     */
    @Test
    void anOperationThatNoLongerCountsAsDelayedCountsAsCompleted() throws Exception {
        int rounds = 5_000;
        try (var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName()).timer(new MockTimer())
                .reaperEnabled(false).build()) {
            for (int round = 0; round < rounds; round++) {
                TestOperation op = new TestOperation(60_000);
                assertFalse(purgatory.tryCompleteElseWatch(op, List.of(KEYS.get(0))));
                Future<Boolean> canceller = executor.submit(() -> op.cancel());
                while (purgatory.numDelayed() != 0) {
                    Thread.onSpinWait(); // no wait: the reads must come as soon as the count drops
                }
                assertEquals(round + 1, purgatory.metrics().completed(), "round " + round);
                assertTrue(canceller.get(60, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void completionRacingExpiryOfZeroAndOneMillisecondOperationsHappensOnce() throws Exception {
        int total = 40_000;
        int offerers = 2;
        int completers = 2;
        LongAdder overlaps = new LongAdder();
        TestOperation[] ops = new TestOperation[total];
        for (int i = 0; i < total; i++) {
            ops[i] = new TestOperation(i % 2, overlaps);
        }
        ConcurrentLinkedQueue<Integer> offered = new ConcurrentLinkedQueue<>();
        AtomicInteger taken = new AtomicInteger();
        try (var purgatory = new DelayedOperationPurgatory<TestOperation>(uniqueName())) {
            CyclicBarrier start = new CyclicBarrier(offerers + completers);
            List<Future<?>> threads = new ArrayList<>();
            for (int w = 0; w < offerers; w++) {
                int first = w;
                threads.add(executor.submit(() -> {
                    start.await();
                    for (int i = first; i < total; i += offerers) {
                        purgatory.tryCompleteElseWatch(ops[i], List.of(keyOf(i)));
                        if (i % 3 == 0) { // complete it at once, racing the timer's expiry of a 0-1 ms delay
                            ops[i].setReady(true);
                            purgatory.checkAndComplete(keyOf(i));
                        }
                        offered.add(i); // and a completer races too
                    }
                    return null;
                }));
            }
            for (int c = 0; c < completers; c++) {
                threads.add(executor.submit(() -> {
                    start.await();
                    while (taken.get() < total) {
                        Integer i = offered.poll();
                        if (i == null) {
                            Thread.yield(); // nothing offered yet: let the offerers run
                            continue;
                        }
                        taken.incrementAndGet();
                        if (i % 2 == 0) {
                            ops[i].setReady(true);
                            purgatory.checkAndComplete(keyOf(i));
                        } else {
                            ops[i].forceComplete();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> thread : threads) {
                thread.get(60, TimeUnit.SECONDS);
            }
            PurgatoryMetrics metrics = purgatory.metrics();
            awaitAllFinished(metrics, ops);

            Outcome outcome = checkEachCompletedOnce(ops);
            System.out.printf("%s: %s%n", testName, outcome);
            assertEquals(total, metrics.completed() + metrics.expired(), "finished operations");
            assertEquals(outcome.completed, metrics.completed());
            assertEquals(outcome.expired, metrics.expired());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
        }
    }

    /**
     * Position watches under every race at once: two threads offer operations waiting for their
     * key's "high watermark" to reach the next offset (offers race, so positions arrive slightly out
     * of order); a follower thread moves high watermarks and calls {@code advance}; another calls
     * {@code checkAndComplete}, forces operations and cancels whole keys (force-completing what it
     * got back, as a user would); the timer expires what is left behind (0-20 ms delays).
     */
    @Test
    void positionWatchesCompleteExactlyOnceUnderAdvancesExpiryCancelAndForce() throws Exception {
        int total = 100_000;
        int purgeInterval = 100;
        Random random = new Random(seed);
        LongAdder overlaps = new LongAdder();
        AtomicLongArray nextOffset = new AtomicLongArray(KEYS.size());
        AtomicLongArray highWatermark = new AtomicLongArray(KEYS.size());
        WatermarkOperation[] ops = new WatermarkOperation[total];
        for (int i = 0; i < total; i++) {
            ops[i] = new WatermarkOperation(random.nextInt(21), overlaps, highWatermark, random.nextInt(KEYS.size()));
        }
        AtomicInteger offered = new AtomicInteger();
        try (var purgatory = DelayedOperationPurgatory.<WatermarkOperation>builder(uniqueName())
                .purgeInterval(purgeInterval).build()) {
            int offerers = 2;
            CyclicBarrier start = new CyclicBarrier(offerers + 2);
            List<Future<?>> threads = new ArrayList<>();
            for (int w = 0; w < offerers; w++) {
                int first = w;
                threads.add(executor.submit(() -> {
                    start.await();
                    for (int i = first; i < total; i += offerers) {
                        WatermarkOperation op = ops[i];
                        op.position = nextOffset.incrementAndGet(op.key);
                        purgatory.tryCompleteElseWatchPosition(op, KEYS.get(op.key), op.position);
                        offered.incrementAndGet();
                    }
                    return null;
                }));
            }
            threads.add(executor.submit(() -> { // the follower
                start.await();
                Random r = new Random(seed + 1);
                while (offered.get() < total) {
                    int k = r.nextInt(KEYS.size());
                    long hw = Math.max(highWatermark.get(k), nextOffset.get(k) - r.nextInt(50));
                    highWatermark.set(k, hw);
                    purgatory.advance(KEYS.get(k), hw);
                }
                return null;
            }));
            threads.add(executor.submit(() -> { // checks, forces and cancels
                start.await();
                Random r = new Random(seed + 2);
                while (offered.get() < total) {
                    int action = r.nextInt(100);
                    if (action < 60) {
                        purgatory.checkAndComplete(KEYS.get(r.nextInt(KEYS.size())));
                    } else if (action < 99) {
                        ops[r.nextInt(Math.max(1, offered.get()))].forceComplete();
                    } else {
                        purgatory.cancelForKey(KEYS.get(r.nextInt(KEYS.size())), "cancelled");
                    }
                }
                return null;
            }));
            for (Future<?> thread : threads) {
                thread.get(60, TimeUnit.SECONDS);
            }
            for (int k = 0; k < KEYS.size(); k++) {
                highWatermark.set(k, Long.MAX_VALUE);
                purgatory.advance(KEYS.get(k), Long.MAX_VALUE);
            }
            awaitQuickly().until(() -> purgatory.numDelayed() == 0);
            // the callbacks, not onComplete alone: the timer's thread runs onExpiration after it
            awaitQuickly().until(() -> Arrays.stream(ops).allMatch(TestOperation::callbacksRan));

            Outcome outcome = checkEachCompletedOnce(ops);
            System.out.printf("%s: %s%n", testName, outcome);
            PurgatoryMetrics metrics = purgatory.metrics();
            assertEquals(outcome.expired, metrics.expired(), "metrics().expired()" + seedInfo());
            assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
            assertTrue(outcome.completed > 0 && outcome.expired > 0, "both paths exercised: " + outcome + seedInfo());
            awaitQuickly().untilAsserted(() -> assertTrue(purgatory.watched() <= purgeInterval + 1,
                    "watched() is " + purgatory.watched() + seedInfo()));
        }
    }

    /** An operation waiting for its key's high watermark to reach its position. */
    private static final class WatermarkOperation extends TestOperation {
        private final AtomicLongArray highWatermark;
        final int key;
        volatile long position = Long.MAX_VALUE;

        WatermarkOperation(long delayMs, LongAdder overlaps, AtomicLongArray highWatermark, int key) {
            super(delayMs, overlaps);
            this.highWatermark = highWatermark;
            this.key = key;
        }

        @Override
        public boolean tryComplete() {
            if (highWatermark.get(key) >= position) {
                setReady(true);
            }
            return super.tryComplete();
        }
    }

    private static Key keyOf(int i) {
        return KEYS.get(i % KEYS.size());
    }

    /**
     * Shutdown loses nothing: close() runs while threads are still offering and completing. Every
     * operation offered, before, during or after close, gets exactly one onComplete; those offered
     * after close() returned are expired at once, inside tryCompleteElseWatch.
     */
    @Test
    void closeWhileBusyAnswersEveryOperationExactlyOnce() throws Exception {
        int perThread = 10_000;
        int total = THREADS * perThread;
        int racingFrom = perThread * 2 / 5; // [0, racingFrom): before close; then racing it
        int afterFrom = perThread * 4 / 5; // [afterFrom, perThread): after close returned
        Random random = new Random(seed);
        LongAdder overlaps = new LongAdder();
        TestOperation[] ops = new TestOperation[total];
        List<List<Key>> watchKeys = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            ops[i] = new TestOperation(60_000, overlaps); // only completion or close can finish them
            watchKeys.add(randomKeys(random, 1 + random.nextInt(2)));
        }
        CountDownLatch readyToRace = new CountDownLatch(THREADS);
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicInteger offeredAfterClose = new AtomicInteger();
        AtomicReference<String> violation = new AtomicReference<>();

        var purgatory = new DelayedOperationPurgatory<TestOperation>(uniqueName());
        List<Future<?>> workers = new ArrayList<>();
        try (purgatory) {
            for (int w = 0; w < THREADS; w++) {
                int base = w * perThread;
                Random r = new Random(seed + w + 1);
                workers.add(executor.submit(() -> {
                    for (int n = 0; n < perThread; n++) {
                        if (n == racingFrom) {
                            readyToRace.countDown();
                            assertTrue(closing.await(60, TimeUnit.SECONDS));
                        } else if (n == afterFrom) {
                            assertTrue(closed.await(60, TimeUnit.SECONDS));
                        }
                        int i = base + n;
                        boolean completedNow = purgatory.tryCompleteElseWatch(ops[i], watchKeys.get(i));
                        if (n >= afterFrom) {
                            offeredAfterClose.incrementAndGet();
                            if (!completedNow || ops[i].completions.get() != 1 || ops[i].expirations.get() != 1) {
                                violation.compareAndSet(null, "offered after close but not expired at once: " + ops[i]);
                            }
                        }
                        int j = base + r.nextInt(perThread);
                        switch (r.nextInt(3)) {
                            case 0 -> {
                                ops[j].setReady(true);
                                purgatory.checkAndComplete(watchKeys.get(j).get(0));
                            }
                            case 1 -> {
                                if (j <= i) { // forcing one not yet offered would take it from the purgatory
                                    ops[j].forceComplete();
                                }
                            }
                            default -> purgatory.checkAndComplete(KEYS.get(r.nextInt(KEYS.size())));
                        }
                    }
                    return null;
                }));
            }
            assertTrue(readyToRace.await(60, TimeUnit.SECONDS));
            closing.countDown();
        } // close() runs here, while the workers offer and complete
        closed.countDown();
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }

        assertNull(violation.get(), "offers after close");
        assertEquals(THREADS * (perThread - afterFrom), offeredAfterClose.get());
        // no waiting: close() and the workers have returned, so every callback has run
        Outcome outcome = checkEachCompletedOnce(ops);
        System.out.printf("%s: %s%n", testName, outcome);
        assertEquals(total, purgatory.metrics().completed() + purgatory.metrics().expired());
        assertEquals(outcome.expired, purgatory.metrics().expired());
        assertEquals(0, purgatory.numDelayed());
        assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
    }

    /**
     * Offers racing {@code close()}, round after round on fresh purgatories with their own timers (the
     * soak in the benchmarks found both races): no offer throws (the timer may be closed under an
     * offer that close() has already answered), and nothing stays linked after close (an offer that
     * links into a list after close() swept its key sweeps that key itself).
     */
    @Test
    void offersRacingCloseNeverThrowAndLeaveNothingLinked() throws Exception {
        int rounds = 300;
        int perRound = 2_000;
        Random random = new Random(seed);
        for (int round = 0; round < rounds; round++) {
            var purgatory = new DelayedOperationPurgatory<TestOperation>(uniqueName());
            TestOperation[] ops = new TestOperation[perRound];
            for (int i = 0; i < perRound; i++) {
                ops[i] = new TestOperation(60_000);
                if (i % 3 == 0) { // completes on its second try, after it was linked
                    TestOperation op = ops[i];
                    op.duringTry = () -> op.setReady(true);
                }
            }
            AtomicInteger offered = new AtomicInteger();
            boolean positions = round % 2 == 0;
            Future<?> offerer = executor.submit(() -> {
                for (int i = 0; i < perRound; i++) {
                    Key key = keyOf(i);
                    if (positions) {
                        purgatory.tryCompleteElseWatchPosition(ops[i], key, i);
                    } else {
                        purgatory.tryCompleteElseWatch(ops[i], List.of(key, keyOf(i + 1)));
                    }
                    offered.incrementAndGet();
                }
                return null;
            });
            int closeAfter = random.nextInt(perRound / 4);
            while (offered.get() < closeAfter) {
                Thread.onSpinWait();
            }
            purgatory.close();
            offerer.get(60, TimeUnit.SECONDS); // rethrows what the offerer threw

            String inRound = " in round " + round + seedInfo();
            assertEquals(0, purgatory.watched(), "watches left after close" + inRound);
            assertEquals(0, purgatory.numDelayed(), inRound);
            checkEachCompletedOnce(ops);
        }
    }

    /**
     * Purges on the reaper thread walk a long watch list while other threads complete operations on
     * it (turning its watches into tombstones): the list must stay intact and its count exact.
     * Several rounds on one purgatory, as the race needs the reaper and the completers on the CPUs
     * at the same moment.
     */
    @Test
    void purgesRacingCompletionsKeepWatchListsIntact() throws Exception {
        int rounds = 8;
        int perRound = 20_000;
        int purgeInterval = 250;
        int completers = 2;
        try (var timer = new MockTimer();
             var purgatory = DelayedOperationPurgatory.<TestOperation>builder(uniqueName())
                     .timer(timer).purgeInterval(purgeInterval).build()) { // purges on the reaper thread
            for (int round = 0; round < rounds; round++) {
                String prefix = "round-" + round + "-";
                TestOperation[] ops = new TestOperation[perRound];
                for (int i = 0; i < perRound; i++) {
                    ops[i] = new TestOperation(60_000);
                    purgatory.tryCompleteElseWatch(ops[i], List.of(prefix + i, "shared"));
                }
                CyclicBarrier start = new CyclicBarrier(completers);
                List<Future<?>> threads = new ArrayList<>();
                for (int c = 0; c < completers; c++) {
                    int first = c;
                    threads.add(executor.submit(() -> {
                        start.await();
                        for (int i = first; i < perRound; i += completers) {
                            ops[i].setReady(true);
                            assertEquals(1, purgatory.checkAndComplete(prefix + i));
                            if (i % 64 < completers) {
                                Thread.yield(); // on a small box, let the reaper in while the other completer runs
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> thread : threads) {
                    thread.get(60, TimeUnit.SECONDS);
                }

                String inRound = " in round " + round;
                assertEquals(0, purgatory.numDelayed());
                awaitQuickly().untilAsserted(() -> assertTrue(purgatory.watched() <= purgeInterval + 2,
                        "watched() is " + purgatory.watched() + inRound));
                assertEquals(0, purgatory.checkAndComplete("shared"), "walking the shared list" + inRound);
                assertEquals(0, purgatory.watched(), "every watch is gone once the shared list was walked" + inRound);
            }
            assertTrue(purgatory.metrics().purged() > 0);
            assertEquals((long) rounds * perRound, purgatory.metrics().completed());
        }
    }

    /**
     * cancelForKey with a reason per key, racing completion by checkAndComplete and expiry by the
     * timer: every operation completes exactly once, its completion() agrees with what onComplete saw
     * and with its onExpiration calls, a cancelled one carries the reason of one of its own keys, and
     * the counts agree (cancelForKey's results with the cancelled operations, the metrics with each
     * path).
     */
    @Test
    void cancelForKeyRacingCheckAndCompleteAndExpiryCompletesEachOperationOnceWithItsReason() throws Exception {
        int total = 50_000;
        Random random = new Random(seed);
        LongAdder overlaps = new LongAdder();
        TestOperation[] ops = new TestOperation[total];
        List<List<Key>> watchKeys = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            ops[i] = new TestOperation(random.nextInt(11), overlaps); // 0-10 ms
            watchKeys.add(randomKeys(random, 1 + random.nextInt(2)));
        }
        AtomicInteger offered = new AtomicInteger();
        LongAdder cancelledByKey = new LongAdder();
        try (var purgatory = new DelayedOperationPurgatory<TestOperation>(uniqueName())) {
            int offerers = 2;
            CyclicBarrier start = new CyclicBarrier(offerers + 2);
            List<Future<?>> threads = new ArrayList<>();
            for (int w = 0; w < offerers; w++) {
                int first = w;
                threads.add(executor.submit(() -> {
                    start.await();
                    for (int i = first; i < total; i += offerers) {
                        purgatory.tryCompleteElseWatch(ops[i], watchKeys.get(i));
                        offered.incrementAndGet();
                    }
                    return null;
                }));
            }
            threads.add(executor.submit(() -> { // makes conditions true and announces them
                start.await();
                Random r = new Random(seed + 1);
                while (offered.get() < total) {
                    int i = r.nextInt(Math.max(1, offered.get()));
                    ops[i].setReady(true);
                    purgatory.checkAndComplete(watchKeys.get(i).get(0));
                }
                return null;
            }));
            threads.add(executor.submit(() -> { // cancels a key now and then
                start.await();
                Random r = new Random(seed + 2);
                while (offered.get() < total) {
                    Key key = KEYS.get(r.nextInt(KEYS.size()));
                    cancelledByKey.add(purgatory.cancelForKey(key, reasonFor(key)));
                }
                return null;
            }));
            for (Future<?> thread : threads) {
                thread.get(60, TimeUnit.SECONDS);
            }
            PurgatoryMetrics metrics = purgatory.metrics();
            awaitAllFinished(metrics, ops);

            Outcome outcome = checkEachCompletedOnce(ops);
            Map<Completion, Long> byCompletion = new EnumMap<>(Completion.class);
            for (Completion how : Completion.values()) {
                byCompletion.put(how, 0L);
            }
            for (int i = 0; i < total; i++) {
                TestOperation op = ops[i];
                byCompletion.merge(op.completion(), 1L, Long::sum);
                if (op.completion() == Completion.CANCELLED
                        && watchKeys.get(i).stream().noneMatch(k -> reasonFor(k).equals(op.reasonSeenByOnComplete))) {
                    throw new AssertionError("operation " + i + " cancelled with " + op.reasonSeenByOnComplete
                            + ", not the reason of one of its keys " + watchKeys.get(i) + seedInfo());
                }
            }
            long completed = byCompletion.get(Completion.COMPLETED);
            long cancelled = byCompletion.get(Completion.CANCELLED);
            System.out.printf("%s: %d operations: %s%n", testName, total, byCompletion);
            assertEquals(cancelledByKey.sum(), cancelled, "cancelForKey's results" + seedInfo());
            assertEquals(0, byCompletion.get(Completion.CLOSED), "nothing closed yet");
            assertEquals(completed + cancelled, metrics.completed(), "metrics().completed()" + seedInfo());
            assertEquals(outcome.expired, metrics.expired(), "metrics().expired()" + seedInfo());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, overlaps.sum(), "tryComplete and onComplete overlapped");
            assertTrue(cancelled > 0 && completed > 0 && outcome.expired > 0, "every path exercised: " + byCompletion + seedInfo());
        }
    }

    private static String reasonFor(Key key) {
        return "deleted " + key.id();
    }

    // --- helpers ---

    /** What the operations' own records say, after checking each was completed exactly once. */
    record Outcome(int completed, int expired) {
    }

    private Outcome checkEachCompletedOnce(TestOperation[] ops) {
        int completed = 0;
        int expired = 0;
        for (int i = 0; i < ops.length; i++) {
            TestOperation op = ops[i];
            if (op.completions.get() != 1 || op.expirations.get() > 1
                    || (op.expirations.get() == 1 && op.completionsSeenByExpiration != 1)) {
                throw new AssertionError("operation " + i + " is not completed exactly once: " + op
                        + (op.expirations.get() > 0 ? ", onComplete calls seen by onExpiration "
                        + op.completionsSeenByExpiration : "") + seedInfo());
            }
            Completion how = op.completion();
            boolean expiry = how == Completion.EXPIRED || how == Completion.CLOSED;
            if (how == null || how != op.completionSeenByOnComplete || expiry != (op.expirations.get() == 1)) {
                throw new AssertionError("operation " + i + ": completion() " + how + ", as onComplete saw it "
                        + op.completionSeenByOnComplete + ", onExpiration calls " + op.expirations.get() + seedInfo());
            }
            if (op.expirations.get() == 1) {
                expired++;
            } else {
                completed++;
            }
        }
        return new Outcome(completed, expired);
    }

    /** A slow-ish step of a callback: a short busy loop, not a wait. */
    private static void spin() {
        for (int i = 0; i < 500; i++) {
            Thread.onSpinWait();
        }
    }

    private static List<Key> randomKeys(Random random, int count) {
        List<Key> chosen = new ArrayList<>(count);
        while (chosen.size() < count) {
            Key key = KEYS.get(random.nextInt(KEYS.size()));
            if (!chosen.contains(key)) {
                chosen.add(key);
            }
        }
        return List.copyOf(chosen);
    }

    private static List<Key> keys(int count) {
        List<Key> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(new Key(i));
        }
        return List.copyOf(keys);
    }

    /**
     * Waits until the metrics count every operation as finished and each operation's callbacks have
     * run (a completing thread counts an operation before it calls them); exactness is checked after.
     */
    private void awaitAllFinished(PurgatoryMetrics metrics, TestOperation[] ops) {
        int total = ops.length;
        awaitQuickly().untilAsserted(() -> assertTrue(metrics.completed() + metrics.expired() >= total,
                "finished operations: " + (metrics.completed() + metrics.expired()) + " of " + total + seedInfo()));
        int[] next = {0}; // the operations before it have run their callbacks
        awaitQuickly().until(() -> {
            while (next[0] < total && ops[next[0]].callbacksRan()) {
                next[0]++;
            }
            return next[0] == total;
        });
    }

    /** Awaits an outcome due soon; gives up at once if a thread (a purgatory's reaper, say) died. */
    private ConditionFactory awaitQuickly() {
        return await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .failFast("a thread died", () -> {
                    if (threadDeath.get() != null) {
                        throw threadDeath.get();
                    }
                });
    }

    private String seedInfo() {
        return " (seed " + seed + ")";
    }
}
