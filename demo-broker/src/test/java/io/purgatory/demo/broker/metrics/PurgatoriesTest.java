package io.purgatory.demo.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.purgatory.Completion;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.timer.MockTimer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One registration per purgatory: its metrics are listed, its name is its own, and it closes with the others. */
class PurgatoriesTest {
    private final MockTimer timer = new MockTimer();
    private final Purgatories purgatories = new Purgatories();

    @AfterEach
    void close() {
        purgatories.close();
        timer.close();
    }

    @Test
    void eachPurgatoryIsListedOnceInTheOrderRegistered() {
        purgatories.register(onManualTime("registry-test-first"));
        purgatories.register(onManualTime("registry-test-second"));

        assertEquals(List.of("registry-test-first", "registry-test-second"), purgatories.metrics().stream().map(PurgatoryMetrics::name).toList());
    }

    @Test
    void aSecondPurgatoryOfTheSameNameIsRefused() {
        purgatories.register(onManualTime("registry-test-produce"));
        DelayedOperationPurgatory<Parked> again = onManualTime("registry-test-produce");
        try {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> purgatories.register(again));
            assertEquals("a purgatory named registry-test-produce is registered already", refused.getMessage());
            assertEquals(1, purgatories.metrics().size());
        } finally {
            again.close();
        }
    }

    @Test
    void closingExpiresWhatIsParkedInEveryPurgatory() {
        DelayedOperationPurgatory<Parked> first = purgatories.register(onManualTime("registry-test-first"));
        DelayedOperationPurgatory<Parked> second = purgatories.register(onManualTime("registry-test-second"));
        Parked a = new Parked();
        Parked b = new Parked();
        first.tryCompleteElseWatch(a, List.of("key"));
        second.tryCompleteElseWatch(b, List.of("key"));

        purgatories.close();

        assertEquals(Completion.CLOSED, a.completion());
        assertEquals(Completion.CLOSED, b.completion());
        assertEquals(List.of(true, true), List.of(a.expired, b.expired), "each told it expired");
    }

    private DelayedOperationPurgatory<Parked> onManualTime(String name) {
        return DelayedOperationPurgatory.<Parked>builder(name).timer(timer).reaperEnabled(false).build();
    }

    /** An operation that waits until its timeout, an hour away, and records that it expired. */
    private static final class Parked extends DelayedOperation {
        private volatile boolean expired;

        Parked() {
            super(3_600_000);
        }

        @Override
        public boolean tryComplete() {
            return false;
        }

        @Override
        public void onExpiration() {
            expired = true;
        }

        @Override
        public void onComplete() {
        }
    }
}
