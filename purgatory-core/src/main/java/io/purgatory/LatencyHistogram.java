package io.purgatory;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * A log-linear histogram of non-negative millisecond values, in the manner of HdrHistogram with
 * 4 bits of precision: values below 16 are counted exactly, larger values in 16 sub-buckets per
 * power of two, so a reported percentile is at most 1/16 (6.25%) above the true value. Fixed size
 * (960 counters), no allocation when recording. It also keeps the exact sum of the values, so a mean
 * or a rate (a Prometheus summary's {@code _sum}) can be computed. Read-only outside this package: the purgatory
 * records into it and hands it out to be read.
 *
 * <p>Thread-safe and lock-free: each counter, the sum and the maximum is an atomic. Reads while values are being recorded
 * see some recent state, not a snapshot.
 */
public final class LatencyHistogram {

    private static final int SUB_BITS = 4;
    private static final int SUB_COUNT = 1 << SUB_BITS;
    private static final int BUCKETS = SUB_COUNT * (64 - SUB_BITS);

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final LongAccumulator max = new LongAccumulator(Math::max, 0);
    /** Adds values that are never negative, stopping at {@code Long.MAX_VALUE}: associative and commutative, as required. */
    private final LongAccumulator sum = new LongAccumulator(LatencyHistogram::saturatedAdd, 0);

    /** Only the purgatory records: users get the histogram to read. */
    LatencyHistogram() {
    }

    /** Records one value; negative values count as 0. */
    void record(long valueMs) {
        long v = Math.max(0, valueMs);
        counts.incrementAndGet(index(v));
        max.accumulate(v);
        sum.accumulate(v);
    }

    /**
     * How many values were recorded.
     *
     * @return the count of recorded values
     */
    public long count() {
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            total += counts.get(i);
        }
        return total;
    }

    /**
     * The sum of the values recorded (negative ones as 0), or {@code Long.MAX_VALUE} if it would be larger; 0 when empty.
     *
     * @return the sum, in milliseconds
     */
    public long sumMs() {
        return sum.get();
    }

    /**
     * The largest value recorded, or 0.
     *
     * @return the maximum, in milliseconds
     */
    public long maxMs() {
        return max.get();
    }

    /**
     * The value at {@code percentile} (0 to 100): the upper bound of the bucket holding that rank,
     * capped at the maximum; 0 when nothing was recorded.
     *
     * @param percentile the rank, from 0 to 100
     * @return the value at that rank, in milliseconds
     * @throws IllegalArgumentException if percentile is not within 0 to 100
     */
    public long valueAtPercentileMs(double percentile) {
        if (!(percentile >= 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile must be in [0, 100]: " + percentile);
        }
        long[] snapshot = readCounts();
        long total = sum(snapshot);
        return percentile(snapshot, total, percentile, maxMs());
    }

    /**
     * The count, sum, maximum and the percentiles 50, 99 and 99.9, read in one pass over the
     * counters (so the percentiles agree with the count).
     *
     * @return the summary, immutable
     */
    public Summary summary() {
        long[] snapshot = readCounts();
        long total = sum(snapshot);
        long maxMs = maxMs();
        return new Summary(total, sumMs(), maxMs, percentile(snapshot, total, 50, maxMs),
                percentile(snapshot, total, 99, maxMs), percentile(snapshot, total, 99.9, maxMs));
    }

    /**
     * A histogram's summary at one reading, in milliseconds. Immutable.
     *
     * @param count values recorded
     * @param sumMs their sum ({@link #sumMs()})
     * @param maxMs the largest ({@link #maxMs()})
     * @param p50Ms the median, p99Ms and p999Ms the 99th and 99.9th percentiles ({@link #valueAtPercentileMs})
     */
    public record Summary(long count, long sumMs, long maxMs, long p50Ms, long p99Ms, long p999Ms) {
    }

    private long[] readCounts() {
        long[] snapshot = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            snapshot[i] = counts.get(i);
        }
        return snapshot;
    }

    private static long sum(long[] counts) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        return total;
    }

    private static long percentile(long[] counts, long total, double percentile, long maxMs) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBound(i), maxMs);
            }
        }
        return maxMs;
    }

    private static long saturatedAdd(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }

    static int index(long v) {
        if (v < SUB_COUNT) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
        int sub = (int) (v >>> (exponent - SUB_BITS)) & (SUB_COUNT - 1);
        return SUB_COUNT * (exponent - SUB_BITS + 1) + sub;
    }

    /** The largest value that maps to bucket i. */
    static long upperBound(int i) {
        if (i < SUB_COUNT) {
            return i;
        }
        int exponent = i / SUB_COUNT + SUB_BITS - 1;
        long sub = i % SUB_COUNT;
        long low = (1L << exponent) | (sub << (exponent - SUB_BITS));
        long width = 1L << (exponent - SUB_BITS);
        return low + (width - 1);
    }

    @Override
    public String toString() {
        return "LatencyHistogram[count " + count() + ", p50 " + valueAtPercentileMs(50) + " ms, p99 "
                + valueAtPercentileMs(99) + " ms, max " + maxMs() + " ms]";
    }
}
