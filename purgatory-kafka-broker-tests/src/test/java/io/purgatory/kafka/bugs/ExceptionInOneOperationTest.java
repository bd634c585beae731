package io.purgatory.kafka.bugs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.junit.jupiter.api.Test;

/**
 * An exception in one operation must not keep the purgatory from completing the others. Kafka fixed this for the
 * loop over a partition's purgatories (4.0); inside one purgatory, {@code checkAndComplete} tries a key's operations
 * one after another, and one that throws from {@code tryComplete} stops the ones after it.
 */
@ShowsOnStock(issue = "KAFKA-17240", value = {"4.0", "4.1", "4.2", "4.3", "4.4"})
class ExceptionInOneOperationTest {

    @Test
    void anOperationThatThrowsDoesNotStopTheOthersOnItsKey() throws Exception {
        DelayedOperationPurgatory<Armed> purgatory = new DelayedOperationPurgatory<>("ExceptionInOne", 0);
        try {
            Armed throwing = new Armed(true);
            Armed completable = new Armed(false);
            TestKey key = new TestKey("k");
            assertFalse(purgatory.tryCompleteElseWatch(throwing, List.of(key)));
            assertFalse(purgatory.tryCompleteElseWatch(completable, List.of(key)));
            throwing.armed = true;
            completable.armed = true;
            try {
                purgatory.checkAndComplete(key);
            } catch (RuntimeException expectedFromTheThrowingOperation) {
                // Kafka passes it on; what matters is the other operation
            }
            assertTrue(completable.isCompleted(), "the operation after the throwing one was not completed");
        } finally {
            purgatory.shutdown();
        }
    }

    /** Once armed, throws from tryComplete or completes. Fields are touched by the test thread only. */
    private static final class Armed extends DelayedOperation {
        private final boolean throwsWhenArmed;
        volatile boolean armed;

        Armed(boolean throwsWhenArmed) {
            super(60_000L);
            this.throwsWhenArmed = throwsWhenArmed;
        }

        @Override
        public boolean tryComplete() {
            if (!armed) {
                return false;
            }
            if (throwsWhenArmed) {
                throw new IllegalStateException("tryComplete failed");
            }
            return forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }
}
