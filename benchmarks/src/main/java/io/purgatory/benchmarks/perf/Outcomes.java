package io.purgatory.benchmarks.perf;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What happened to the operations of one run, recorded by the operations themselves while
 * {@link #start() recording}: how long after becoming completable an operation completed (the
 * purgatory's reaction: finding it in its key's watch list, locking and completing it), and how long
 * after its deadline an operation expired. Both in nanoseconds, up to an hour, three significant
 * digits.
 *
 * <p>Thread-safe: operations record from the driver thread and the timers' expiry threads at
 * once ({@link Recorder}s are wait-free for writers); {@code start} and {@code stop} are called by
 * the driver thread.
 */
final class Outcomes {

    private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int SIGNIFICANT_DIGITS = 3;

    private final Recorder completionLatency = new Recorder(HIGHEST_NANOS, SIGNIFICANT_DIGITS);
    private final Recorder expiryLateness = new Recorder(HIGHEST_NANOS, SIGNIFICANT_DIGITS);
    private final LongAdder completed = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder expiredEarly = new LongAdder();
    private final LongAccumulator maxEarliness = new LongAccumulator(Math::max, 0);
    private volatile boolean recording;

    /** Forgets everything recorded so far and records from now on. */
    void start() {
        completionLatency.reset();
        expiryLateness.reset();
        completed.reset();
        expired.reset();
        expiredEarly.reset();
        maxEarliness.reset();
        recording = true;
    }

    /** Stops recording (operations still expire and complete, unrecorded) and returns the record. */
    Snapshot stop() {
        recording = false;
        return new Snapshot(completed.sum(), expired.sum(), expiredEarly.sum(), maxEarliness.get(),
                completionLatency.getIntervalHistogram(), expiryLateness.getIntervalHistogram());
    }

    /** An operation completed through {@code tryComplete}, having become completable at that time. */
    void completed(long completableSinceNanos) {
        if (recording) {
            completed.increment();
            completionLatency.recordValue(clamp(System.nanoTime() - completableSinceNanos));
        }
    }

    /**
     * An operation expired. An expiry before the deadline is recorded with lateness 0 and counted
     * apart, with how early the earliest one was: a timer that rounds deadlines down to a tick fires
     * up to a tick early.
     */
    void expired(long deadlineNanos) {
        if (recording) {
            expired.increment();
            long lateness = System.nanoTime() - deadlineNanos;
            if (lateness < 0) {
                expiredEarly.increment();
                maxEarliness.accumulate(-lateness);
            }
            expiryLateness.recordValue(clamp(lateness));
        }
    }

    private static long clamp(long nanos) {
        return Math.max(0, Math.min(HIGHEST_NANOS, nanos));
    }

    /** The record of one run: counts, the earliest expiry's earliness and the two histograms (nanoseconds). */
    record Snapshot(long completed, long expired, long expiredEarly, long maxEarlinessNanos,
                    Histogram completionLatency, Histogram expiryLateness) {
    }
}
