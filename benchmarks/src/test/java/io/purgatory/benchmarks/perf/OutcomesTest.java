package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OutcomesTest {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    @Test
    void recordsOnlyBetweenStartAndStop() {
        Outcomes outcomes = new Outcomes();
        outcomes.completed(System.nanoTime());
        outcomes.start();
        outcomes.completed(System.nanoTime() - HOUR / 2);
        Outcomes.Snapshot snapshot = outcomes.stop();
        outcomes.completed(System.nanoTime());

        assertEquals(1, snapshot.completed());
        assertEquals(1, snapshot.completionLatency().getTotalCount());
        assertTrue(snapshot.completionLatency().getMaxValue() >= HOUR / 2 * 0.999);
        assertEquals(1, outcomes.stop().completed(), "a stopped record takes nothing more");
    }

    @Test
    void anExpiryBeforeItsDeadlineIsCountedApartAsLatenessZero() {
        Outcomes outcomes = new Outcomes();
        outcomes.start();
        outcomes.expired(System.nanoTime() + HOUR);
        outcomes.expired(System.nanoTime() - HOUR / 2);
        Outcomes.Snapshot snapshot = outcomes.stop();

        assertEquals(2, snapshot.expired());
        assertEquals(1, snapshot.expiredEarly());
        assertTrue(snapshot.maxEarlinessNanos() > HOUR / 2);
        assertEquals(0, snapshot.expiryLateness().getMinValue());
        assertTrue(snapshot.expiryLateness().getMaxValue() >= HOUR / 2 * 0.999);
    }

    @Test
    void startForgetsThePreviousRun() {
        Outcomes outcomes = new Outcomes();
        outcomes.start();
        outcomes.expired(System.nanoTime() + HOUR);
        outcomes.stop();
        outcomes.start();
        Outcomes.Snapshot snapshot = outcomes.stop();

        assertEquals(0, snapshot.expired());
        assertEquals(0, snapshot.expiredEarly());
        assertEquals(0, snapshot.maxEarlinessNanos());
        assertEquals(0, snapshot.expiryLateness().getTotalCount());
    }
}
