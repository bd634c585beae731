package io.purgatory.demo.broker.metrics;

import io.purgatory.demo.broker.metrics.MemoryBudget.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads charging and releasing one kind at once, as handler threads do: the kind never holds more
 * than its share, whatever the interleaving, and what every thread gave back leaves it at zero.
 */
@Tag("stress")
class MemoryBudgetStressTest {
    private static final int THREADS = 4;
    private static final int ROUNDS = 200_000;

    @Test
    void concurrentChargesNeverTakeAKindPastItsShareAndReleasesBalance() throws Exception {
        MemoryBudget budget = new MemoryBudget(16 * 1_000); // a share of 2,000 bytes: four threads of up to 2,000 contend
        long share = budget.shareBytes(Kind.PARKED);
        AtomicLong mostSeen = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<CompletableFuture<Long>> workers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        for (int t = 0; t < THREADS; t++) {
            workers.add(CompletableFuture.supplyAsync(() -> {
                await(start);
                long refused = 0;
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < ROUNDS; i++) {
                    long bytes = 1 + random.nextInt(2_000);
                    if (budget.tryCharge(Kind.PARKED, bytes)) {
                        mostSeen.accumulateAndGet(budget.used(Kind.PARKED), Math::max);
                        budget.release(Kind.PARKED, bytes);
                    } else {
                        refused++;
                    }
                }
                return refused;
            }, threads));
        }
        long refused = 0;
        try {
            for (CompletableFuture<Long> worker : workers) {
                refused += worker.get();
            }
        } finally {
            threads.shutdownNow();
        }

        assertTrue(mostSeen.get() <= share, mostSeen.get() + " seen held, share " + share);
        assertEquals(0, budget.used(Kind.PARKED));
        assertEquals(0, budget.used());
        assertTrue(refused > 0, "the threads contended for the share");
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
