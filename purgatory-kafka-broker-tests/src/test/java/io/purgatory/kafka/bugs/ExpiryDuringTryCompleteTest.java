package io.purgatory.kafka.bugs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.junit.jupiter.api.Test;

/**
 * The expiry must not run {@code onComplete} while another thread is inside the operation's {@code tryComplete}
 * (which runs under the operation's lock): {@code onComplete} then reads state that {@code tryComplete} is
 * changing. On Kafka 4.0 {@code forceComplete()} does not take the lock, so the expiration reaper completes the
 * operation in the middle of a {@code tryComplete}.
 *
 * <p>One thread sits in {@code tryComplete} (through {@code checkAndComplete}) until the operation's timeout has
 * passed and the expiry has either run {@code onComplete} or is waiting for the lock; then it leaves.
 */
@ShowsOnStock(issue = "KAFKA-19312", value = {"4.0"})
class ExpiryDuringTryCompleteTest {

    private static final long TIMEOUT_MS = 1_500L;

    @Test
    void expiryWaitsForARunningTryComplete() throws Exception {
        DelayedOperationPurgatory<Blocking> purgatory = new DelayedOperationPurgatory<>("ExpiryDuringTry", 0);
        Blocking operation = new Blocking();
        try {
            TestKey key = new TestKey("k");
            assertFalse(purgatory.tryCompleteElseWatch(operation, List.of(key)));
            operation.armed.set(true);
            Thread checker = new Thread(() -> purgatory.checkAndComplete(key), "checker");
            checker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> operation.inTryComplete);
            assertFalse(operation.isCompleted(), "the operation expired before the checker entered tryComplete:"
                    + " the machine is too slow for a " + TIMEOUT_MS + " ms timeout; nothing was tested");
            await().atMost(Duration.ofSeconds(30)).until(() -> operation.onCompleteRan.get() || expiryWaits(operation));
            operation.release.countDown();
            checker.join(30_000L);
            await().atMost(Duration.ofSeconds(30)).until(operation::isCompleted);
            assertFalse(operation.overlapped.get(), "onComplete ran while tryComplete was running");
            assertTrue(operation.onCompleteRan.get());
            assertEquals(1, operation.onCompleteCalls.get());
        } finally {
            operation.release.countDown(); // a failed wait must not leave the checker holding the operation's lock
            purgatory.shutdown();
        }
    }

    /** The expiry's thread has entered forceComplete and is parked (on the operation's lock). */
    private static boolean expiryWaits(Blocking operation) {
        Thread expiry = operation.forceCompleteCaller.get();
        return expiry != null && (expiry.getState() == Thread.State.WAITING || expiry.getState() == Thread.State.BLOCKED);
    }

    /** Once armed, tryComplete waits for the test to release it and does not complete. Fields are atomics or volatile. */
    private static final class Blocking extends DelayedOperation {
        private final AtomicBoolean armed = new AtomicBoolean();
        private final CountDownLatch release = new CountDownLatch(1);
        private final AtomicReference<Thread> forceCompleteCaller = new AtomicReference<>();
        private final AtomicBoolean onCompleteRan = new AtomicBoolean();
        private final AtomicBoolean overlapped = new AtomicBoolean();
        private final AtomicInteger onCompleteCalls = new AtomicInteger();
        volatile boolean inTryComplete;

        Blocking() {
            super(TIMEOUT_MS);
        }

        @Override
        public boolean tryComplete() {
            if (!armed.compareAndSet(true, false)) {
                return false;
            }
            inTryComplete = true;
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inTryComplete = false;
            }
            return false;
        }

        @Override
        public boolean forceComplete() {
            if (!Thread.currentThread().getName().equals("checker")) {
                forceCompleteCaller.compareAndSet(null, Thread.currentThread()); // the expiry's thread
            }
            return super.forceComplete();
        }

        @Override
        public void onComplete() {
            if (inTryComplete) {
                overlapped.set(true);
            }
            onCompleteCalls.incrementAndGet();
            onCompleteRan.set(true);
        }

        @Override
        public void onExpiration() {
        }
    }
}
