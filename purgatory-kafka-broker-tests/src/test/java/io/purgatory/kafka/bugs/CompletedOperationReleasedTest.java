package io.purgatory.kafka.bugs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.junit.jupiter.api.Test;

/**
 * A completed operation (and the response it holds) must be garbage as soon as it completes. Kafka's purgatory
 * keeps it in the watch list of every other key it was watched on until a purge, which runs only once more than
 * {@code purgeInterval} (1000 by default) completed operations have piled up: a share fetch completed through one
 * of its two keys, or a remote fetch completed through one of its partitions, stayed reachable with its records
 * and brokers ran out of memory. Kafka fixed the two callers (the share fetch completes itself on both keys, the
 * remote-fetch purgatory purges at every reaper pass); the purgatory itself still holds completed operations on
 * every line.
 */
@ShowsOnStock(issue = "KAFKA-19389, KAFKA-19763", value = {"4.0", "4.1", "4.2", "4.3", "4.4"})
class CompletedOperationReleasedTest {

    @Test
    void anOperationCompletedThroughOneKeyIsNotHeldByItsOtherKey() throws Exception {
        DelayedOperationPurgatory<Completable> purgatory = new DelayedOperationPurgatory<>("Released", 0);
        try {
            WeakReference<Completable> completed = watchAndCompleteThroughFirstKey(purgatory);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                System.gc();
                return completed.get() == null;
            });
        } finally {
            purgatory.shutdown();
        }
    }

    private static WeakReference<Completable> watchAndCompleteThroughFirstKey(
            DelayedOperationPurgatory<Completable> purgatory) {
        Completable operation = new Completable();
        assertFalse(purgatory.tryCompleteElseWatch(operation, List.of(new TestKey("a"), new TestKey("b"))));
        operation.ready = true;
        assertEquals(1, purgatory.checkAndComplete(new TestKey("a")));
        return new WeakReference<>(operation);
    }

    /** Completes once ready; holds a response-sized payload. */
    private static final class Completable extends DelayedOperation {
        @SuppressWarnings("unused")
        private final byte[] response = new byte[1 << 20];
        volatile boolean ready;

        Completable() {
            super(60_000L);
        }

        @Override
        public boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }
}
