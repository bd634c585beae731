package io.purgatory.benchmarks.perf;

import java.util.List;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;

/**
 * Kafka's {@link DelayedOperationPurgatory} built as a broker builds one: its own
 * {@code SystemTimer}, purge interval 1000, and its {@code ExpiredOperationReaper} thread, which
 * drives the timer by calling {@code advanceClock(200)} in a loop and purges the watch lists. Its
 * {@code shutdown()} drops what is still pending. Thread-safe.
 */
final class KafkaPurgatory implements PurgatoryUnderTest {

    private static final int BROKER_ID = 0;

    private final DelayedOperationPurgatory<Operation> purgatory =
            new DelayedOperationPurgatory<>("purgatory-perf", BROKER_ID);
    private final Outcomes outcomes;

    KafkaPurgatory(Outcomes outcomes) {
        this.outcomes = outcomes;
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
        purgatory.tryCompleteElseWatch(new OffsetOperation(timeoutMs, deadlineNanos, outcomes, partition, offset),
                List.of(partition.key()));
    }

    /** Kafka's purgatory has keys only: {@code checkAndComplete}, whatever the high watermark. */
    @Override
    public void advance(Partition partition) {
        purgatory.checkAndComplete(partition.key());
    }

    @Override
    public int pending() {
        return purgatory.numDelayed();
    }

    @Override
    public void close() {
        try {
            purgatory.shutdown();
        } catch (Exception e) {
            throw new IllegalStateException("shutting Kafka's purgatory down failed", e);
        }
    }

    /**
     * The same fields and logic as {@link OurPurgatory}'s operation, on Kafka's base class.
     * Thread-safe: the time it became completable is volatile, the rest final.
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
     * Waits for its partition's high watermark to reach its offset; the same as {@link OurPurgatory}'s.
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
