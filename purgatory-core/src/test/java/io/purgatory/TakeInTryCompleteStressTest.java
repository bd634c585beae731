package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The two guarantees {@link DelayedOperation#tryComplete()} gives a hand-off, under races: takers
 * whose {@code tryComplete} takes an item from a shared queue and then calls {@code forceComplete}.
 * Each round parks four takers on a key of its own, then a producer adds two items (walking the key
 * after each) while another thread walks the key too, a canceller cancels the four in a random
 * order, and the purgatory's own
 * {@code SystemTimer} expires those of 0 or 1 ms. If a {@code tryComplete} ran on a completed
 * operation, or a {@code forceComplete} under the lock lost to an expiry or a cancel, an item would
 * be taken twice or taken and lost; the test counts both, and checks at the end that every item
 * produced is either in exactly one taker completed as {@code COMPLETED} or still in the queue.
 */
@Tag("stress")
class TakeInTryCompleteStressTest {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final long seed = System.nanoTime();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Queue<Integer> queue = new ConcurrentLinkedQueue<>();
    /** tryComplete calls on an operation already completed: guarantee 1 broken. */
    private final LongAdder triedAfterCompletion = new LongAdder();
    /** Items taken by a tryComplete whose forceComplete then returned false: guarantee 2 broken. */
    private final Queue<Integer> lost = new ConcurrentLinkedQueue<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS), "test threads did not stop");
    }

    /** Takes one item for its answer, as a long-poll on a work queue does. */
    private final class Taker extends DelayedOperation {
        volatile Integer item;

        Taker(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            if (isCompleted()) {
                triedAfterCompletion.increment();
                return false;
            }
            Integer taken = queue.poll();
            if (taken == null) {
                return false;
            }
            item = taken;
            spin(); // widens the window in which an expiry or a cancel would win, were the lock not held
            if (forceComplete()) {
                return true;
            }
            lost.add(taken);
            return false;
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }

        @Override
        public String toString() {
            return "Taker[" + completion() + ", item " + item + "]";
        }
    }

    /** A slow-ish step of a tryComplete: a short busy loop, not a wait. */
    private static void spin() {
        for (int i = 0; i < 200; i++) {
            Thread.onSpinWait();
        }
    }

    @Test
    void everyItemTakenIsAnsweredOnceAndNoneIsLost() throws Exception {
        int rounds = 5_000;
        int takersPerRound = 4;
        int itemsPerRound = 2;
        Random random = new Random(seed);
        List<Taker> offered = new ArrayList<>();
        try (DelayedOperationPurgatory<Taker> purgatory = DelayedOperationPurgatory.<Taker>builder(
                "TakeInTryComplete-" + NAMES.incrementAndGet()).purgeInterval(100).build()) {
            for (int round = 0; round < rounds; round++) {
                String key = "queue-" + round;
                List<Taker> takers = new ArrayList<>();
                for (int i = 0; i < takersPerRound; i++) {
                    Taker taker = new Taker(random.nextInt(2)); // 0 or 1 ms: the timer races too
                    takers.add(taker);
                    purgatory.tryCompleteElseWatch(taker, List.of(key)); // the queue is empty: it parks
                }
                offered.addAll(takers);
                int first = round * itemsPerRound;
                long order = random.nextLong();
                CyclicBarrier start = new CyclicBarrier(3);
                Future<?> producer = executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < itemsPerRound; i++) {
                        queue.add(first + i);
                        purgatory.checkAndComplete(key);
                    }
                    return null;
                });
                Future<?> walker = executor.submit(() -> { // a second walk of the key, racing the producer's
                    start.await();
                    for (int i = 0; i < itemsPerRound * 2; i++) {
                        purgatory.checkAndComplete(key);
                    }
                    return null;
                });
                Future<?> canceller = executor.submit(() -> {
                    start.await();
                    List<Taker> shuffled = new ArrayList<>(takers);
                    Collections.shuffle(shuffled, new Random(order));
                    for (Taker taker : shuffled) {
                        spin();
                        taker.cancel("picked");
                    }
                    return null;
                });
                producer.get(30, TimeUnit.SECONDS);
                walker.get(30, TimeUnit.SECONDS);
                canceller.get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                    .until(() -> offered.stream().allMatch(DelayedOperation::isCompleted));
        }

        String seedInfo = " (seed " + seed + ")";
        assertEquals(0, triedAfterCompletion.sum(), "tryComplete ran on a completed operation" + seedInfo);
        assertEquals(List.of(), List.copyOf(lost), "items taken by a forceComplete that lost" + seedInfo);
        Set<Integer> answered = new HashSet<>();
        for (Taker taker : offered) {
            Integer item = taker.item;
            assertEquals(item != null, taker.completion() == Completion.COMPLETED, taker + seedInfo);
            if (item != null) {
                assertTrue(answered.add(item), "item " + item + " answered twice" + seedInfo);
            }
        }
        int items = rounds * itemsPerRound;
        Set<Integer> accounted = new HashSet<>(answered);
        accounted.addAll(queue);
        assertEquals(items, accounted.size(), "items answered or still queued" + seedInfo);
        assertEquals(items, answered.size() + queue.size(), "an item both answered and queued" + seedInfo);
    }
}
