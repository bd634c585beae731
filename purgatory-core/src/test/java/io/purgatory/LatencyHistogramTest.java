package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The expiry lateness histogram: exact below 16 ms, otherwise never more than 1/16 above the true
 * percentile (nearest-rank definition) and never below it.
 */
class LatencyHistogramTest {

    @Test
    void emptyHistogramReportsZero() {
        LatencyHistogram histogram = new LatencyHistogram();

        assertEquals(0, histogram.count());
        assertEquals(0, histogram.sumMs());
        assertEquals(0, histogram.maxMs());
        assertEquals(0, histogram.valueAtPercentileMs(50));
        assertEquals(0, histogram.valueAtPercentileMs(100));
    }

    @Test
    void valuesBelowSixteenAreExact() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int v = 0; v < 16; v++) {
            histogram.record(v);
        }

        assertEquals(16, histogram.count());
        for (int v = 0; v < 16; v++) {
            double percentile = 100.0 * (v + 1) / 16;
            assertEquals(v, histogram.valueAtPercentileMs(percentile), "p" + percentile);
        }
        assertEquals(0, histogram.valueAtPercentileMs(0));
    }

    @Test
    void repeatedSmallValuesAreExactAtEveryRank() {
        LatencyHistogram histogram = new LatencyHistogram();
        long[] values = {3, 7, 7, 15};
        for (long v : values) {
            histogram.record(v);
        }

        assertEquals(3, histogram.valueAtPercentileMs(25));
        assertEquals(7, histogram.valueAtPercentileMs(26));
        assertEquals(7, histogram.valueAtPercentileMs(50));
        assertEquals(7, histogram.valueAtPercentileMs(75));
        assertEquals(15, histogram.valueAtPercentileMs(76));
        assertEquals(15, histogram.valueAtPercentileMs(100));
    }

    @Test
    void percentilesOfUniformValuesAreWithinOneSixteenth() {
        long[] values = new long[10_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = i + 1;
        }
        assertPercentilesWithinOneSixteenth(values);
    }

    @Test
    void percentilesOfLongTailedValuesAreWithinOneSixteenth() {
        Random random = new Random(42);
        long[] values = new long[50_000];
        for (int i = 0; i < values.length; i++) {
            // exponential with mean 50 ms, plus a tail of rare multi-second outliers
            double v = -50 * Math.log(1 - random.nextDouble());
            if (random.nextInt(100) == 0) {
                v *= 200;
            }
            values[i] = (long) v;
        }
        assertPercentilesWithinOneSixteenth(values);
    }

    @Test
    void percentilesOfPowersOfTwoAndTheirNeighboursAreWithinOneSixteenth() {
        List<Long> values = new ArrayList<>();
        for (int shift = 4; shift < 62; shift++) {
            long p = 1L << shift;
            values.add(p - 1);
            values.add(p);
            values.add(p + 1);
        }
        values.add(Long.MAX_VALUE);
        assertPercentilesWithinOneSixteenth(values.stream().mapToLong(Long::longValue).toArray());
    }

    private static void assertPercentilesWithinOneSixteenth(long[] values) {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long v : values) {
            histogram.record(v);
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);

        assertEquals(values.length, histogram.count());
        for (double percentile = 0.5; percentile <= 100; percentile += 0.5) {
            long rank = Math.max(1, (long) Math.ceil(percentile / 100 * sorted.length));
            long expected = sorted[(int) rank - 1];
            long reported = histogram.valueAtPercentileMs(percentile);
            String what = "p" + percentile + ": true " + expected + ", reported " + reported;
            assertTrue(reported >= expected, what + " (below the true value)");
            assertTrue(reported - expected <= expected / 16, what + " (more than 1/16 above)");
        }
    }

    @Test
    void theSummaryIsTheHistogramsOwnFiguresInOneReading() {
        LatencyHistogram histogram = new LatencyHistogram();
        assertEquals(new LatencyHistogram.Summary(0, 0, 0, 0, 0, 0), histogram.summary(), "empty");
        for (long v = 1; v <= 1000; v++) {
            histogram.record(v);
        }
        histogram.record(-5); // counts as 0

        LatencyHistogram.Summary summary = histogram.summary();

        assertEquals(new LatencyHistogram.Summary(histogram.count(), histogram.sumMs(), histogram.maxMs(),
                histogram.valueAtPercentileMs(50), histogram.valueAtPercentileMs(99), histogram.valueAtPercentileMs(99.9)), summary);
        assertEquals(1001, summary.count());
        assertEquals(500_500, summary.sumMs());
        assertEquals(1000, summary.maxMs());
    }

    @Test
    void maxIsTheLargestValueRecordedAndCapsTheTopPercentile() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(1000);
        histogram.record(5);
        histogram.record(123_457);
        histogram.record(40);

        assertEquals(123_457, histogram.maxMs());
        assertEquals(1000 + 5 + 123_457 + 40, histogram.sumMs(), "the sum is exact, not bucket bounds");
        assertEquals(123_457, histogram.valueAtPercentileMs(100), "the top percentile is the max, not a bucket bound");
    }

    @Test
    void largestPossibleValueIsRecorded() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(Long.MAX_VALUE);

        assertEquals(1, histogram.count());
        assertEquals(Long.MAX_VALUE, histogram.maxMs());
        assertEquals(Long.MAX_VALUE, histogram.valueAtPercentileMs(50));
        histogram.record(1);
        assertEquals(Long.MAX_VALUE, histogram.sumMs(), "the sum stops at the largest long rather than wrapping");
    }

    @Test
    void negativeValuesAreRecordedAsZero() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(-5);
        histogram.record(Long.MIN_VALUE);

        assertEquals(2, histogram.count());
        assertEquals(0, histogram.sumMs());
        assertEquals(0, histogram.maxMs());
        assertEquals(0, histogram.valueAtPercentileMs(100));
    }

    @Test
    void percentileOutsideZeroToHundredIsRejected() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(10);

        assertThrows(IllegalArgumentException.class, () -> histogram.valueAtPercentileMs(-0.001));
        assertThrows(IllegalArgumentException.class, () -> histogram.valueAtPercentileMs(100.001));
        assertThrows(IllegalArgumentException.class, () -> histogram.valueAtPercentileMs(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> histogram.valueAtPercentileMs(Double.POSITIVE_INFINITY));
        assertEquals(10, histogram.valueAtPercentileMs(0));
        assertEquals(10, histogram.valueAtPercentileMs(100));
    }

    @Tag("stress")
    @Test
    void concurrentRecordsAreAllCounted() throws Exception {
        int threads = 4;
        int perThread = 100_000;
        LatencyHistogram histogram = new LatencyHistogram();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> recorders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long value = 1 + 4 * t; // 1, 5, 9, 13: exact values
                recorders.add(executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        histogram.record(value);
                    }
                    return null;
                }));
            }
            for (Future<?> recorder : recorders) {
                recorder.get(60, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }

        assertEquals((long) threads * perThread, histogram.count());
        assertEquals((1 + 5 + 9 + 13L) * perThread, histogram.sumMs());
        assertEquals(13, histogram.maxMs());
        assertEquals(1, histogram.valueAtPercentileMs(25));
        assertEquals(5, histogram.valueAtPercentileMs(50));
        assertEquals(9, histogram.valueAtPercentileMs(75));
    }
}
