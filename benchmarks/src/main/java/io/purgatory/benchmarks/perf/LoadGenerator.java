package io.purgatory.benchmarks.perf;

import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives a purgatory from the calling thread, the way a broker's request handler does: it offers
 * requests ({@code tryCompleteElseWatch}) and, when a request's condition comes true, makes it
 * completable and calls {@code checkAndComplete} on its first key, as a follower fetch would on its
 * partition.
 *
 * <p>Each request gets a fresh operation watching {@code keysPerRequest} distinct random keys; with
 * probability {@code completeFraction} it also gets a completion at a delay drawn from the
 * workload's distribution (a delay at or beyond the timeout is dropped: the request expires first
 * anyway). Due completions always go before the next offer, so completions never fall behind, even
 * with no rate limit: the driver then measures how fast one thread can push requests through.
 *
 * <p>Offers are paced by schedule, not by sleeping between requests: request {@code n} is due at
 * {@code start + n / rate}, and a driver that fell behind catches up at once, so the achieved rate is
 * the target unless the purgatory (or the machine) cannot take it. Between due events the thread
 * parks.
 *
 * <p>Not thread-safe: one generator per thread.
 */
final class LoadGenerator implements LoadDriver {

    private static final double NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final double NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Workload workload;
    private final PurgatoryUnderTest purgatory;
    private final SplittableRandom random;
    private final WatchKey[] keys;
    private final long timeoutNanos;
    private final PriorityQueue<Completion> completions = new PriorityQueue<>();

    LoadGenerator(Workload workload, PurgatoryUnderTest purgatory) {
        this.workload = workload;
        this.purgatory = purgatory;
        this.random = new SplittableRandom(workload.seed());
        this.keys = new WatchKey[workload.keys()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new WatchKey(i);
        }
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(workload.timeoutMs());
    }

    @Override
    public long run(long durationNanos) {
        double periodNanos = workload.rateLimited() ? NANOS_PER_SECOND / workload.ratePerSecond() : 0;
        long start = System.nanoTime();
        long end = start + durationNanos;
        long offered = 0;
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                return offered;
            }
            Completion next = completions.peek();
            if (next != null && now - next.atNanos >= 0) {
                completions.poll();
                next.operation.makeCompletable();
                purgatory.checkAndComplete(next.key);
                continue;
            }
            long offerDue = start + (long) (offered * periodNanos);
            if (now - offerDue >= 0) {
                offer(now);
                offered++;
                continue;
            }
            long wake = next == null ? offerDue : Math.min(offerDue, next.atNanos);
            LockSupport.parkNanos(Math.min(wake, end) - now);
        }
    }

    /** Offers count requests as fast as it can, regardless of the rate, and completes none. */
    void offer(int count) {
        for (int i = 0; i < count; i++) {
            offer(System.nanoTime());
        }
        completions.clear();
    }

    private void offer(long now) {
        List<WatchKey> watched = drawKeys();
        Completable operation = purgatory.offer(workload.timeoutMs(), now + timeoutNanos, watched);
        if (random.nextDouble() < workload.completeFraction()) {
            long delayNanos = (long) (NANOS_PER_MS * workload.completionDelay()
                    .sample(random, workload.completionMeanMs(), workload.lognormalSigma()));
            if (delayNanos < timeoutNanos) {
                completions.add(new Completion(operation, watched.get(0), now + delayNanos));
            }
        }
    }

    private List<WatchKey> drawKeys() {
        if (workload.keysPerRequest() == 1) {
            return List.of(keys[random.nextInt(keys.length)]);
        }
        WatchKey[] drawn = new WatchKey[workload.keysPerRequest()];
        for (int i = 0; i < drawn.length; i++) {
            WatchKey key;
            do {
                key = keys[random.nextInt(keys.length)];
            } while (contains(drawn, i, key));
            drawn[i] = key;
        }
        return List.of(drawn);
    }

    private static boolean contains(WatchKey[] keys, int length, WatchKey key) {
        for (int i = 0; i < length; i++) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
    }

    /** A request's condition coming true at {@code atNanos}. */
    private record Completion(Completable operation, WatchKey key, long atNanos) implements Comparable<Completion> {

        @Override
        public int compareTo(Completion other) {
            return Long.compare(atNanos - other.atNanos, 0);
        }
    }
}
