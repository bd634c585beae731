package io.purgatory.benchmarks.perf;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Drives the high-watermark workload from the calling thread, which is both the producer and the
 * follower, so that CPU per request is all on one thread and deterministic (as in MAX mode).
 *
 * <p>Requests go to the partitions round robin, as fast as the purgatory takes them. With
 * probability {@code expireFraction} a request waits for {@link Partition#NEVER} and expires after
 * {@code timeoutMs}. Any other request is a produce waiting for the partition's next offset
 * {@code o} (1, 2, ...), with an hour's timeout; right after offering it, the follower moves the
 * partition's high watermark to {@code o - lag} (once that is positive) and tells the purgatory,
 * which completes the request offered {@code lag} produces earlier. Every partition therefore holds
 * exactly {@code lag} waiting produce requests, plus the expiring requests not yet expired.
 *
 * <p>Not thread-safe: one driver per thread.
 */
final class HighWatermarkDriver implements LoadDriver {

    private static final long PRODUCE_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);
    private static final long PRODUCE_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(PRODUCE_TIMEOUT_MS);

    private final HighWatermarkWorkload workload;
    private final PurgatoryUnderTest purgatory;
    private final SplittableRandom random;
    private final Partition[] partitions;
    /** Produce requests offered per partition: the last offset each waits for. */
    private final long[] produced;
    private final long expiringTimeoutNanos;
    private int nextPartition;

    HighWatermarkDriver(HighWatermarkWorkload workload, PurgatoryUnderTest purgatory) {
        this.workload = workload;
        this.purgatory = purgatory;
        this.random = new SplittableRandom(workload.seed());
        this.partitions = new Partition[workload.partitions()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new Partition(i);
        }
        this.produced = new long[partitions.length];
        this.expiringTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(workload.timeoutMs());
    }

    /**
     * Parks lag produce requests on every partition, round robin and none expiring, so that no
     * high watermark moves before the warm-up.
     */
    @Override
    public void prime() {
        for (int round = 0; round < workload.lag(); round++) {
            for (int index = 0; index < partitions.length; index++) {
                produce(index, System.nanoTime());
            }
        }
    }

    @Override
    public long run(long durationNanos) {
        long end = System.nanoTime() + durationNanos;
        long offered = 0;
        for (long now = System.nanoTime(); now - end < 0; now = System.nanoTime()) {
            offer(now);
            offered++;
        }
        return offered;
    }

    /** Offers the next request: to the next partition, expiring or a produce. */
    private void offer(long now) {
        int index = nextPartition;
        nextPartition = index + 1 == partitions.length ? 0 : index + 1;
        if (random.nextDouble() < workload.expireFraction()) {
            purgatory.offer(workload.timeoutMs(), now + expiringTimeoutNanos, partitions[index], Partition.NEVER);
        } else {
            produce(index, now);
        }
    }

    /** Offers a produce waiting for the partition's next offset, then advances its high watermark. */
    private void produce(int index, long now) {
        Partition partition = partitions[index];
        long offset = ++produced[index];
        purgatory.offer(PRODUCE_TIMEOUT_MS, now + PRODUCE_TIMEOUT_NANOS, partition, offset);
        long highWatermark = offset - workload.lag();
        if (highWatermark > 0) {
            partition.advanceTo(highWatermark);
            purgatory.advance(partition);
        }
    }
}
