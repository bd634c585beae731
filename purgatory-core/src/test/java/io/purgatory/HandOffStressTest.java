package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ten million hand-offs on a {@link HandOff} with its real timer, while takes time out (after 0 to
 * 20 ms) and are cancelled (one in eight, some at once, some later) as items arrive: two producers
 * offer numbered items to four keys, each key's items in order, keeping at most a few queued; two
 * consumers keep 64 takes each in flight, on one key or two. Checked, for every item: it was taken
 * once or is still queued at the end (0 lost, 0 given twice); and, for every two takes that took
 * from one key, the take that began waiting first (its {@code take} call returned before the other's
 * began) took the item offered first (0 served out of order). Work is in rounds of
 * {@value #ROUND} hand-offs, checked at the end of each; the seed is in the failure messages.
 */
@Tag("stress")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class HandOffStressTest {

    private static final Logger LOG = LoggerFactory.getLogger(HandOffStressTest.class);
    private static final long HAND_OFFS = Long.getLong("handoff.stress.handOffs", 10_000_000L);
    private static final int ROUND = 500_000;
    private static final int KEYS = 4;
    private static final int PRODUCERS = 2;
    private static final int CONSUMERS = 2;
    private static final int IN_FLIGHT = 64;
    /** A producer offers to a key while it holds fewer items than this. */
    private static final int MAX_QUEUED = 8;
    private static final int SEQ_BITS = 40;
    private static final List<Duration> TIMEOUTS = List.of(
            Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(3), Duration.ofMillis(3), Duration.ofMillis(20));

    /** What one consumer saw in a round: for each take that took an item, when it began and returned, and the item. */
    private static final class Log {
        int size;
        long[] began = new long[ROUND];
        long[] returned = new long[ROUND];
        long[] items = new long[ROUND];
        long timedOut;
        long cancelled;
        /** Takes that took an item offered while they waited (not one queued when they began). */
        long parkedThenTaken;

        void taken(long b, long r, long item) {
            if (size == began.length) {
                began = Arrays.copyOf(began, size * 2);
                returned = Arrays.copyOf(returned, size * 2);
                items = Arrays.copyOf(items, size * 2);
            }
            began[size] = b;
            returned[size] = r;
            items[size++] = item;
        }
    }

    /** A take in flight, with the clock's reading before it began and after it returned. */
    private record InFlight(CompletableFuture<Handed<Integer, Long>> future, long began, long returned, boolean parked) {
    }

    private final long seed = System.nanoTime();
    private final AtomicLong clock = new AtomicLong();
    private final long[] produced = new long[KEYS];
    private final BitSet[] seen = new BitSet[KEYS];
    /** Per key: the last item taken in the rounds checked so far. */
    private final long[] lastOfRounds = new long[KEYS];

    @Test
    void tenMillionHandOffsRacingTimeoutsAndCancellations() throws Exception {
        long start = System.nanoTime();
        long handOffs = 0;
        long timedOut = 0;
        long cancelled = 0;
        long parked = 0;
        Arrays.fill(lastOfRounds, -1);
        for (int k = 0; k < KEYS; k++) {
            seen[k] = new BitSet();
        }
        try (HandOff<Integer, Long> handOff = HandOff.<Integer, Long>builder("HandOffStressTest").build()) {
            for (int round = 0; handOffs < HAND_OFFS; round++) {
                Log[] logs = runRound(handOff, new SplittableRandom(seed + round));
                for (Log log : logs) {
                    handOffs += log.size;
                    timedOut += log.timedOut;
                    cancelled += log.cancelled;
                    parked += log.parkedThenTaken;
                }
                check(logs, round);
            }
            for (int k = 0; k < KEYS; k++) {
                for (Optional<Handed<Integer, Long>> h; (h = handOff.poll(List.of(k))).isPresent(); ) {
                    markSeen(h.get().item(), "queued at the end");
                }
                assertEquals(produced[k], seen[k].cardinality(), "seed " + seed + ": items of key " + k + " taken or queued, of " + produced[k] + " offered");
                assertEquals(produced[k], seen[k].nextClearBit(0), "seed " + seed + ": key " + k + " lost an item");
                assertEquals(0, handOff.waiting(k));
            }
            assertEquals(0, handOff.metrics().delayed(), "no take left waiting");
        }
        LOG.info("{} hand-offs ({} to a take that waited), {} takes timed out, {} cancelled, in {} ms (seed {})",
                handOffs, parked, timedOut, cancelled, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), seed);
        assertTrue(parked > 0 && timedOut > 0 && cancelled > 0,
                "the races happened: " + parked + " taken after waiting, " + timedOut + " timed out, " + cancelled + " cancelled");
    }

    /** One round: producers and consumers until the consumers have taken {@value #ROUND} items, then quiescence. */
    private Log[] runRound(HandOff<Integer, Long> handOff, SplittableRandom random) throws InterruptedException {
        LongAdder taken = new LongAdder();
        Log[] logs = new Log[CONSUMERS];
        Thread[] threads = new Thread[PRODUCERS + CONSUMERS];
        Throwable[] failure = new Throwable[1];
        CountDownLatch consumersDone = new CountDownLatch(CONSUMERS);
        for (int c = 0; c < CONSUMERS; c++) {
            Log log = new Log();
            logs[c] = log;
            SplittableRandom own = random.split();
            threads[c] = new Thread(() -> {
                try {
                    consume(handOff, own, log, taken);
                } finally {
                    consumersDone.countDown();
                }
            }, "consumer-" + c);
        }
        for (int p = 0; p < PRODUCERS; p++) {
            int first = p;
            threads[CONSUMERS + p] = new Thread(() -> produce(handOff, first, consumersDone), "producer-" + p);
        }
        for (Thread t : threads) {
            t.setUncaughtExceptionHandler((th, e) -> failure[0] = e);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure[0] != null) {
            throw new AssertionError("seed " + seed + ": a thread failed", failure[0]);
        }
        return logs;
    }

    /** Offers numbered items to the keys first, first + PRODUCERS, ..., keeping a few queued, until the consumers are done. */
    private void produce(HandOff<Integer, Long> handOff, int first, CountDownLatch consumersDone) {
        while (consumersDone.getCount() != 0) {
            boolean offered = false;
            for (int k = first; k < KEYS; k += PRODUCERS) {
                if (handOff.queued(k) < MAX_QUEUED) {
                    handOff.offer(k, ((long) k << SEQ_BITS) | produced[k]++);
                    offered = true;
                }
            }
            if (!offered) {
                Thread.yield();
            }
        }
    }

    /** Keeps {@value #IN_FLIGHT} takes in flight, cancelling some, until the round's hand-offs are taken; then waits for the rest. */
    private void consume(HandOff<Integer, Long> handOff, SplittableRandom random, Log log, LongAdder taken) {
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        while (taken.sum() < ROUND) {
            int a = random.nextInt(KEYS);
            List<Integer> keys = random.nextInt(4) == 0 ? List.of(a, (a + 1 + random.nextInt(KEYS - 1)) % KEYS) : List.of(a);
            long began = clock.incrementAndGet();
            CompletableFuture<Handed<Integer, Long>> future = handOff.take(keys, TIMEOUTS.get(random.nextInt(TIMEOUTS.size())));
            InFlight take = new InFlight(future, began, clock.incrementAndGet(), !future.isDone());
            if (random.nextInt(16) == 0) {
                future.cancel(true); // at once: races the producers' offers
            }
            inFlight.addLast(take);
            if (inFlight.size() == IN_FLIGHT) {
                InFlight oldest = inFlight.pollFirst();
                if (random.nextInt(16) == 0) {
                    oldest.future().cancel(true); // later: races its timeout too
                }
                record(oldest, log, taken);
            }
        }
        for (InFlight take; (take = inFlight.pollFirst()) != null; ) {
            record(take, log, taken);
        }
    }

    private static void record(InFlight take, Log log, LongAdder taken) {
        Handed<Integer, Long> handed;
        try {
            handed = take.future().join();
        } catch (java.util.concurrent.CancellationException e) {
            log.cancelled++;
            return;
        }
        if (handed.isTaken()) {
            log.taken(take.began(), take.returned(), handed.item());
            if (take.parked()) {
                log.parkedThenTaken++;
            }
            taken.increment();
        } else {
            log.timedOut++;
        }
    }

    /** Each item taken once; per key, a take that began waiting first took the item offered first. */
    private void check(Log[] logs, int round) {
        int n = 0;
        for (Log log : logs) {
            n += log.size;
        }
        long[] began = new long[n];
        long[] returned = new long[n];
        long[] items = new long[n];
        int i = 0;
        for (Log log : logs) {
            System.arraycopy(log.began, 0, began, i, log.size);
            System.arraycopy(log.returned, 0, returned, i, log.size);
            System.arraycopy(log.items, 0, items, i, log.size);
            i += log.size;
        }
        long[] firstOfRound = new long[KEYS];
        Arrays.fill(firstOfRound, Long.MAX_VALUE);
        for (int t = 0; t < n; t++) {
            markSeen(items[t], "round " + round);
            int k = key(items[t]);
            firstOfRound[k] = Math.min(firstOfRound[k], seq(items[t]));
        }
        for (int k = 0; k < KEYS; k++) {
            if (firstOfRound[k] != Long.MAX_VALUE && firstOfRound[k] <= lastOfRounds[k]) {
                throw new AssertionError("seed " + seed + ", round " + round + ": key " + k + " gave item " + firstOfRound[k]
                        + " after item " + lastOfRounds[k] + " in an earlier round");
            }
        }
        // sweep the takes in the order they began; those that returned before each began are older
        Integer[] byBegan = order(began);
        Integer[] byReturned = order(returned);
        long[] newestOlder = new long[KEYS];
        Arrays.fill(newestOlder, -1);
        int older = 0;
        for (Integer t : byBegan) {
            for (; older < n && returned[byReturned[older]] < began[t]; older++) {
                long item = items[byReturned[older]];
                newestOlder[key(item)] = Math.max(newestOlder[key(item)], seq(item));
            }
            int k = key(items[t]);
            if (newestOlder[k] > seq(items[t])) {
                throw new AssertionError("seed " + seed + ", round " + round + ": a take on key " + k + " took item " + seq(items[t])
                        + " though a take that began waiting before it took item " + newestOlder[k]);
            }
        }
        for (int t = 0; t < n; t++) {
            int k = key(items[t]);
            lastOfRounds[k] = Math.max(lastOfRounds[k], seq(items[t]));
        }
    }

    private void markSeen(long item, String where) {
        int k = key(item);
        int s = (int) seq(item);
        if (seen[k].get(s)) {
            throw new AssertionError("seed " + seed + ": item " + s + " of key " + k + " given twice (" + where + ")");
        }
        seen[k].set(s);
    }

    private static Integer[] order(long[] ticks) {
        Integer[] idx = new Integer[ticks.length];
        for (int t = 0; t < idx.length; t++) {
            idx[t] = t;
        }
        Arrays.sort(idx, (x, y) -> Long.compare(ticks[x], ticks[y]));
        return idx;
    }

    private static int key(long item) {
        return (int) (item >>> SEQ_BITS);
    }

    private static long seq(long item) {
        return item & ((1L << SEQ_BITS) - 1);
    }
}
