package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.purgatory.timer.MockTimer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The embedding example of the README, kept compiling and true. */
class EmbeddingExampleTest {

    record PartitionKey(String topic, int partition) {}

    /** Answers a produce request once every in-sync replica has its offset, or times out. */
    static final class DelayedProduce extends DelayedOperation {
        private final AtomicLong highWatermark;
        private final long requiredOffset;
        private final CompletableFuture<String> response;

        DelayedProduce(long timeoutMs, AtomicLong highWatermark, long requiredOffset,
                CompletableFuture<String> response) {
            super(timeoutMs);
            this.highWatermark = highWatermark;
            this.requiredOffset = requiredOffset;
            this.response = response;
        }

        @Override public boolean tryComplete() {
            return highWatermark.get() >= requiredOffset && forceComplete();
        }

        @Override public void onComplete() {
            response.complete(highWatermark.get() >= requiredOffset ? "NONE" : "REQUEST_TIMED_OUT");
        }

        @Override public void onExpiration() {
            // count the timeout, log it: the response was sent by onComplete
        }
    }

    @Test
    void requestIsAnsweredWhenTheHighWatermarkReachesItsOffset() {
        MockTimer timer = new MockTimer();
        try (DelayedOperationPurgatory<DelayedProduce> purgatory =
                DelayedOperationPurgatory.<DelayedProduce>builder("readme-acked").timer(timer).build()) {
            AtomicLong highWatermark = new AtomicLong(0);
            PartitionKey p0 = new PartitionKey("demo", 0);
            CompletableFuture<String> response = new CompletableFuture<>();

            purgatory.tryCompleteElseWatch(new DelayedProduce(30_000, highWatermark, 42, response), List.of(p0));
            assertFalse(response.isDone());

            highWatermark.set(42); // a follower fetched up to offset 42
            assertEquals(1, purgatory.checkAndComplete(p0));
            assertEquals("NONE", response.join());
        }
    }

    @Test
    void requestTimesOutWhenTheReplicasDoNotCatchUp() {
        MockTimer timer = new MockTimer();
        try (DelayedOperationPurgatory<DelayedProduce> purgatory =
                DelayedOperationPurgatory.<DelayedProduce>builder("readme-timeout").timer(timer).build()) {
            CompletableFuture<String> response = new CompletableFuture<>();
            purgatory.tryCompleteElseWatch(
                    new DelayedProduce(30_000, new AtomicLong(0), 42, response), List.of(new PartitionKey("demo", 0)));

            timer.advance(30_000);
            assertEquals("REQUEST_TIMED_OUT", response.join());
            assertEquals(1, purgatory.metrics().expired());
        }
    }
}
