package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HighWatermarkDriverTest {

    @Test
    void everyPartitionHoldsLagProducesAndEachProduceCompletesOneLagEarlier() {
        HighWatermarkWorkload workload = new HighWatermarkWorkload(3, 50, 60_000, 0.2, 1);
        Outcomes outcomes = new Outcomes();
        for (PurgatoryImplementation implementation : PurgatoryImplementation.values()) {
            try (PurgatoryUnderTest purgatory = implementation.open(outcomes)) {
                HighWatermarkDriver driver = new HighWatermarkDriver(workload, purgatory);

                driver.prime();
                assertEquals(150, purgatory.pending(), implementation + " after priming");

                outcomes.start();
                long offered = driver.run(TimeUnit.MILLISECONDS.toNanos(50));
                Outcomes.Snapshot recorded = outcomes.stop();
                long expiring = purgatory.pending() - 150;
                assertTrue(offered > 0);
                assertEquals(offered, recorded.completed() + expiring, implementation + ": one completion per produce");
                assertEquals(0, recorded.expired(), implementation + ": nothing expires within a minute");
            }
        }
    }
}
