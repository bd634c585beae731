package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The {@link Duration} forms of the operation's delay and of the waits' timeouts: whole
 * milliseconds, a fraction of one dropped, anything too long for a {@code long} of milliseconds
 * never; a negative one refused by name. And {@link Waiters#isClosed()}.
 */
class DurationFormsTest {

    /** An operation that never completes by its condition. */
    private static final class Idle extends DelayedOperation {
        Idle(Duration delay) {
            super(delay);
        }

        @Override
        public boolean tryComplete() {
            return false;
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }

    @Test
    void anOperationsDelayIsTheDurationInWholeMilliseconds() {
        assertEquals(1500, new Idle(Duration.ofMillis(1500)).delayMs());
        assertEquals(2, new Idle(Duration.ofNanos(2_999_999)).delayMs());
        assertEquals(Long.MAX_VALUE, new Idle(Duration.ofSeconds(Long.MAX_VALUE)).delayMs());
        assertEquals("delay must not be negative: PT-0.001S",
                assertThrows(IllegalArgumentException.class, () -> new Idle(Duration.ofMillis(-1))).getMessage());
        assertEquals("delay", assertThrows(NullPointerException.class, () -> new Idle(null)).getMessage());
    }

    @Test
    void aDurationDelayExpiresAtItsMillisecond() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<Idle> purgatory = DelayedOperationPurgatory.<Idle>builder("DurationFormsTest")
                     .timer(timer).reaperEnabled(false).build()) {
            Idle op = new Idle(Duration.ofMillis(20));
            purgatory.tryCompleteElseWatch(op, java.util.List.of("k"));
            timer.advance(Duration.ofMillis(19));
            assertFalse(op.isCompleted());
            timer.advance(Duration.ofMillis(1));
            assertEquals(Completion.EXPIRED, op.completion());
        }
    }

    @Test
    void waitersSayWhenTheyAreClosedAndRefuseANegativeTimeoutByName() {
        MockTimer timer = new MockTimer();
        Waiters<String> waiters = new Waiters<>(DelayedOperationPurgatory.builder("DurationFormsTest-waiters")
                .timer(timer).reaperEnabled(false), key -> 0L);
        try {
            assertEquals("timeout must not be negative: PT-1S", assertThrows(IllegalArgumentException.class,
                    () -> waiters.waitFor("k", 1, Duration.ofSeconds(-1))).getMessage());
            assertFalse(waiters.isClosed());
            waiters.close();
            assertTrue(waiters.isClosed());
            CompletableFuture<WaitOutcome> late = waiters.waitFor("k", 1, Duration.ofSeconds(1));
            assertEquals(WaitOutcome.CLOSED, late.getNow(null));
        } finally {
            waiters.close();
            timer.close();
        }
    }
}
