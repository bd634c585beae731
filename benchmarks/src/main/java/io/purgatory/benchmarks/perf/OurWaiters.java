package io.purgatory.benchmarks.perf;

import io.purgatory.WaitOutcome;
import io.purgatory.Waiters;
import java.time.Duration;
import java.util.List;

/**
 * Our {@link Waiters}, the future form without a subclass, on the high-watermark workload: a produce
 * is {@code waitFor(partition, offset, timeout)} with a {@code whenComplete} callback that records
 * the same outcome {@link OurPurgatory}'s subclass records in {@code tryComplete} and
 * {@code onExpiration}; an advance is {@code advance(partition)}, which reads the partition's high
 * watermark. HWM mode only: the other modes' requests watch keys, which {@code Waiters} does not offer.
 * Thread-safe, as {@code Waiters} is.
 */
final class OurWaiters implements PurgatoryUnderTest {

    private final Waiters<Partition> waiters = new Waiters<>("purgatory-perf", Partition::highWatermark);
    private final Outcomes outcomes;

    OurWaiters(Outcomes outcomes) {
        this.outcomes = outcomes;
    }

    @Override
    public Completable offer(long timeoutMs, long deadlineNanos, List<WatchKey> keys) {
        throw new UnsupportedOperationException("Waiters wait for positions: HWM mode only");
    }

    @Override
    public void checkAndComplete(WatchKey key) {
        throw new UnsupportedOperationException("Waiters wait for positions: HWM mode only");
    }

    @Override
    public void offer(long timeoutMs, long deadlineNanos, Partition partition, long offset) {
        waiters.waitFor(partition, offset, Duration.ofMillis(timeoutMs)).whenComplete((outcome, cancelled) -> {
            if (outcome == WaitOutcome.REACHED) {
                outcomes.completed(partition.reachedAtNanos(offset));
            } else {
                outcomes.expired(deadlineNanos);
            }
        });
    }

    @Override
    public void advance(Partition partition) {
        waiters.advance(partition);
    }

    @Override
    public int pending() {
        return (int) waiters.metrics().delayed();
    }

    @Override
    public void close() {
        waiters.close();
    }
}
