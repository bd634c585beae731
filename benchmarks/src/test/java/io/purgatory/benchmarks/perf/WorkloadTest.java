package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WorkloadTest {

    private static Workload workload(double rate, int keys, int keysPerRequest, long timeoutMs, double fraction) {
        return new Workload(rate, keys, keysPerRequest, timeoutMs, fraction, CompletionDelay.EXPONENTIAL, 20, 1, 1);
    }

    @Test
    void rateZeroMeansNoLimit() {
        assertFalse(workload(0, 10, 1, 500, 0.5).rateLimited());
        assertTrue(workload(1000, 10, 1, 500, 0.5).rateLimited());
    }

    @Test
    void rejectsWhatCannotBeGenerated() {
        assertThrows(IllegalArgumentException.class, () -> workload(-1, 10, 1, 500, 0.5));
        assertThrows(IllegalArgumentException.class, () -> workload(1000, 10, 11, 500, 0.5));
        assertThrows(IllegalArgumentException.class, () -> workload(1000, 10, 0, 500, 0.5));
        assertThrows(IllegalArgumentException.class, () -> workload(1000, 10, 1, 0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> workload(1000, 10, 1, 500, 1.5));
        assertThrows(IllegalArgumentException.class, () -> workload(1000, 10, 1, 500, Double.NaN));
    }
}
