package io.purgatory.kafka.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.junit.jupiter.api.Test;

/**
 * Once an operation has completed, the purgatory must not call its {@code tryComplete} again: a share fetch
 * acquires partition locks in {@code tryComplete} and releases them in {@code onComplete}, so a
 * {@code tryComplete} after {@code onComplete} leaks the locks. Kafka fixed it before 4.0 (the purgatory checks
 * {@code isCompleted()} under the operation's lock).
 */
@ShowsOnStock(issue = "KAFKA-17848, KAFKA-17948", value = {})
class TryCompleteAfterCompletionTest {

    @Test
    void aCompletedOperationIsNotTriedThroughItsOtherKey() throws Exception {
        DelayedOperationPurgatory<Counting> purgatory = new DelayedOperationPurgatory<>("TryAfterCompletion", 0);
        try {
            Counting operation = new Counting();
            assertFalse(purgatory.tryCompleteElseWatch(operation, List.of(new TestKey("a"), new TestKey("b"))));
            operation.ready = true;
            assertEquals(1, purgatory.checkAndComplete(new TestKey("a")));
            assertEquals(0, purgatory.checkAndComplete(new TestKey("b")));
            assertEquals(0, operation.triesAfterCompletion.get(), "tryComplete ran after onComplete");
        } finally {
            purgatory.shutdown();
        }
    }

    /** Completes once ready; counts the tryComplete calls after onComplete. */
    private static final class Counting extends DelayedOperation {
        private final AtomicInteger triesAfterCompletion = new AtomicInteger();
        volatile boolean ready;
        volatile boolean onCompleteRan;

        Counting() {
            super(60_000L);
        }

        @Override
        public boolean tryComplete() {
            if (onCompleteRan) {
                triesAfterCompletion.incrementAndGet();
            }
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
            onCompleteRan = true;
        }

        @Override
        public void onExpiration() {
        }
    }
}
