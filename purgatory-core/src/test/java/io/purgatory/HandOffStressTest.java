package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
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
 * whose {@code tryComplete} takes an item from a shared queue and then calls {@code forceComplete},
 * while a producer adds items and walks the key, a canceller cancels the key and single takers, and
 * the purgatory's own {@code SystemTimer} expires takers of 0 to 2 ms. If a {@code tryComplete} ran
 * on a completed operation, or a {@code forceComplete} under the lock lost to an expiry or a cancel,
 * an item would be taken twice or taken and lost; the test counts both, and checks at the end that
 * every item produced is either in exactly one completed taker or still in the queue.
 */
@Tag("stress")
class HandOffStressTest {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final String KEY = "queue";

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

    @Test
    void everyItemTakenIsAnsweredOnceAndNoneIsLost() throws Exception {
        int takers = 20_000;
        int items = takers / 2;
        Random random = new Random(seed);
        List<Taker> offered = new ArrayList<>(takers);
        for (int i = 0; i < takers; i++) {
            offered.add(new Taker(random.nextInt(3)));
        }
        try (DelayedOperationPurgatory<Taker> purgatory = DelayedOperationPurgatory.<Taker>builder(
                "HandOffStressTest-" + NAMES.incrementAndGet()).purgeInterval(100).build()) {
            CyclicBarrier start = new CyclicBarrier(3);
            Future<?> offerer = executor.submit(() -> {
                start.await();
                for (Taker taker : offered) {
                    purgatory.tryCompleteElseWatch(taker, List.of(KEY));
                }
                return null;
            });
            Future<?> producer = executor.submit(() -> {
                start.await();
                for (int i = 0; i < items; i++) {
                    queue.add(i);
                    purgatory.checkAndComplete(KEY);
                }
                return null;
            });
            Future<?> canceller = executor.submit(() -> {
                start.await();
                Random own = new Random(seed + 1);
                for (int i = 0; i < takers / 20; i++) {
                    offered.get(own.nextInt(takers)).cancel("picked");
                    if (i % 100 == 0) {
                        purgatory.cancelForKey(KEY, "all");
                    }
                }
                return null;
            });
            offerer.get(60, TimeUnit.SECONDS);
            producer.get(60, TimeUnit.SECONDS);
            canceller.get(60, TimeUnit.SECONDS);
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
        Set<Integer> accounted = new HashSet<>(answered);
        accounted.addAll(queue);
        assertEquals(items, accounted.size(), "items answered or still queued" + seedInfo);
        assertEquals(items, answered.size() + queue.size(), "an item both answered and queued" + seedInfo);
    }
}
