package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReportsTest {

    @Test
    void percentilesOfAnEmptyHistogramAreMissing() {
        assertTrue(Double.isNaN(Reports.valueAt(new Histogram(3), 50)));
    }

    @Test
    void percentilesAndMaximumComeFromTheHistogram() {
        Histogram histogram = new Histogram(3);
        for (long value = 1; value <= 1000; value++) {
            histogram.recordValue(value);
        }

        assertEquals(500, Reports.valueAt(histogram, 50));
        assertEquals(990, Reports.valueAt(histogram, 99));
        assertEquals(1000, Reports.valueAt(histogram, 100));
    }
}
