package io.purgatory.demo.broker.http;

import io.purgatory.demo.broker.Waits;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dashboard's history stays within its budget, and a sample that fails costs one tick, not the feed. */
class EventStreamTest {
    @Test
    void aTickWhoseSampleThrowsIsSkippedAndTheNextRuns() {
        AtomicInteger calls = new AtomicInteger();
        Supplier<String> sampler = () -> {
            int call = calls.incrementAndGet();
            if (call == 2) {
                throw new IllegalStateException("sample " + call + " failed");
            }
            return "{\"n\":" + call + "}";
        };
        EventStream events = new EventStream(sampler, 180, 1 << 20);

        events.tick();
        assertEquals("{\"n\":1}", events.latest(), "the failed sample is skipped");
        events.tick();

        assertEquals("{\"n\":3}", events.latest());
        assertEquals(2, events.historySize());
    }

    @Test
    void aScheduledFeedKeepsSamplingAfterASampleThrows() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        EventStream events = new EventStream(() -> {
            if (calls.incrementAndGet() % 2 == 0) {
                throw new IllegalStateException("every other sample fails");
            }
            return "{}";
        }, 180, 1 << 20);
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
        try {
            loop.scheduleAtFixedRate(events::tick, 0, 1, TimeUnit.MILLISECONDS); // a task that throws would be cancelled
            Waits.soon().until(() -> calls.get() >= 10);
        } finally {
            loop.shutdownNow();
        }
    }

    @Test
    void theHistoryKeepsWithinItsSampleCountAndCharacterBudget() {
        String sample = "x".repeat(1_000);
        EventStream events = new EventStream(() -> sample, 180, 10_000);
        for (int i = 0; i < 50; i++) {
            events.tick();
        }
        assertEquals(10, events.historySize(), "the oldest go first once the budget is spent");
        assertTrue(events.historyChars() <= 10_000);

        EventStream counted = new EventStream(() -> "{}", 5, 1 << 20);
        for (int i = 0; i < 50; i++) {
            counted.tick();
        }
        assertEquals(5, counted.historySize());
    }
}
