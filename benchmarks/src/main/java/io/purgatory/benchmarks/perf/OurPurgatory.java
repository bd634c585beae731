package io.purgatory.benchmarks.perf;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.util.List;

/**
 * Our {@link DelayedOperationPurgatory} with its defaults, used with position watches or with keys
 * only. Its {@code close()} expires what is still pending, after the run has stopped recording.
 * Thread-safe.
 */
final class OurPurgatory implements PurgatoryUnderTest {

    private final DelayedOperationPurgatory<Operation> purgatory =
            new DelayedOperationPurgatory<>("purgatory-perf");
    private final Outcomes outcomes;
    private final boolean positions;

    /** @param positions whether high-watermark requests watch positions, or their partition's key only */
    OurPurgatory(Outcomes outcomes, boolean positions) {
        this.outcomes = outcomes;
        this.positions = positions;
    }

    @Override
    public Completable offer(long timeoutMs, long deadlineNanos, List<WatchKey> keys) {
        Operation operation = new Operation(timeoutMs, deadlineNanos, outcomes);
        purgatory.tryCompleteElseWatch(operation, keys);
        return operation;
    }

    @Override
    public void checkAndComplete(WatchKey key) {
        purgatory.checkAndComplete(key);
    }

    @Override
    public void offer(long timeoutMs, long deadlineNanos, Partition partition, long offset) {
        Operation operation = new OffsetOperation(timeoutMs, deadlineNanos, outcomes, partition, offset);
        if (positions) {
            purgatory.tryCompleteElseWatchPosition(operation, partition.key(), offset);
        } else {
            purgatory.tryCompleteElseWatch(operation, List.of(partition.key()));
        }
    }

    @Override
    public void advance(Partition partition) {
        if (positions) {
            purgatory.advance(partition.key(), partition.highWatermark());
        } else {
            purgatory.checkAndComplete(partition.key());
        }
    }

    @Override
    public int pending() {
        return Math.toIntExact(purgatory.numDelayed());
    }

    @Override
    public void close() {
        purgatory.close();
    }

    /**
     * Completes once made completable; the same fields and logic as {@link KafkaPurgatory}'s
     * operation, so that both purgatories carry the same payload. Thread-safe: the time it became
     * completable is volatile, the rest final.
     */
    private static class Operation extends DelayedOperation implements Completable {

        private final long deadlineNanos;
        private final Outcomes outcomes;
        private volatile long completableSinceNanos = NOT_COMPLETABLE;

        Operation(long timeoutMs, long deadlineNanos, Outcomes outcomes) {
            super(timeoutMs);
            this.deadlineNanos = deadlineNanos;
            this.outcomes = outcomes;
        }

        @Override
        public void makeCompletable() {
            completableSinceNanos = System.nanoTime();
        }

        /** When the condition came to hold, or {@link Completable#NOT_COMPLETABLE}. */
        long completableSinceNanos() {
            return completableSinceNanos;
        }

        @Override
        public boolean tryComplete() {
            long since = completableSinceNanos();
            if (since != NOT_COMPLETABLE && forceComplete()) {
                outcomes.completed(since);
                return true;
            }
            return false;
        }

        @Override
        public void onComplete() {
            // the outcome is recorded by the path that won: tryComplete or onExpiration
        }

        @Override
        public void onExpiration() {
            outcomes.expired(deadlineNanos);
        }
    }

    /**
     * Waits for its partition's high watermark to reach its offset; the same as {@link KafkaPurgatory}'s.
     * Thread-safe: its own fields are final, the partition's high watermark volatile.
     */
    private static final class OffsetOperation extends Operation {
        private final Partition partition;
        private final long offset;

        OffsetOperation(long timeoutMs, long deadlineNanos, Outcomes outcomes, Partition partition, long offset) {
            super(timeoutMs, deadlineNanos, outcomes);
            this.partition = partition;
            this.offset = offset;
        }

        @Override
        long completableSinceNanos() {
            return partition.reachedAtNanos(offset);
        }
    }
}
