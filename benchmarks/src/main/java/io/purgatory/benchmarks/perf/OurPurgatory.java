package io.purgatory.benchmarks.perf;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.util.List;

/**
 * Our {@link DelayedOperationPurgatory} with its defaults. Its {@code close()} expires what is still
 * pending, after the run has stopped recording. Thread-safe.
 */
final class OurPurgatory implements PurgatoryUnderTest {

    private final DelayedOperationPurgatory<Operation> purgatory =
            new DelayedOperationPurgatory<>("purgatory-perf");
    private final Outcomes outcomes;

    OurPurgatory(Outcomes outcomes) {
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
    public int pending() {
        return purgatory.numDelayed();
    }

    @Override
    public void close() {
        purgatory.close();
    }

    /**
     * Completes once made completable; the same fields and logic as {@link KafkaPurgatory}'s
     * operation, so that both purgatories carry the same payload.
     */
    private static final class Operation extends DelayedOperation implements Completable {
        private static final long NOT_COMPLETABLE = Long.MIN_VALUE;

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

        @Override
        public boolean tryComplete() {
            long since = completableSinceNanos;
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
}
