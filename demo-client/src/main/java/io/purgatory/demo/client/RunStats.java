package io.purgatory.demo.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One run's counts and latency histograms, per {@link Outcome}. Latencies are recorded in
 * microseconds in an auto-resizing HdrHistogram with 3 significant digits (0.1% resolution); the
 * smallest and largest are also kept exactly.
 *
 * <p>Not thread-safe: one thread owns it (the load generator's event loop); other threads see its
 * contents only through the {@link Progress} and {@link RunReport.OutcomeSummary} copies it makes.
 */
final class RunStats {
    private static final int SIGNIFICANT_DIGITS = 3;

    private final Map<Outcome, Tally> tallies = new TreeMap<>(Outcome.ORDER);
    private long sent;
    private long inFlight;

    /** A request was sent; it is in flight until its outcome. */
    void onSent() {
        sent++;
        inFlight++;
    }

    /** A request in flight ended with {@code outcome}, {@code latencyNanos} after it was sent. */
    void onOutcome(Outcome outcome, long latencyNanos) {
        tally(outcome).record(TimeUnit.NANOSECONDS.toMicros(Math.max(0, latencyNanos)));
        inFlight--;
    }

    /** A request in flight ended with {@code outcome}, which has no latency (acks=0: written). */
    void onOutcome(Outcome outcome) {
        tally(outcome).count++;
        inFlight--;
    }

    long sent() {
        return sent;
    }

    long inFlight() {
        return inFlight;
    }

    Progress progress(long elapsedNanos) {
        long acked = 0;
        long timedOut = 0;
        long otherErrors = 0;
        for (Map.Entry<Outcome, Tally> entry : tallies.entrySet()) {
            Outcome outcome = entry.getKey();
            long count = entry.getValue().count;
            if (outcome.kind() == Outcome.Kind.ACKED) {
                acked += count;
            } else if (outcome.kind() == Outcome.Kind.TIMED_OUT) {
                timedOut += count;
            } else if (outcome.isOtherError()) {
                otherErrors += count;
            }
        }
        return new Progress(elapsedNanos, sent, acked, timedOut, otherErrors, inFlight);
    }

    /** Copies of every outcome's count and latencies, in report order. */
    List<RunReport.OutcomeSummary> summaries() {
        List<RunReport.OutcomeSummary> summaries = new ArrayList<>(tallies.size());
        tallies.forEach((outcome, tally) -> summaries.add(tally.latenciesMicros == null
                ? RunReport.OutcomeSummary.withoutLatencies(outcome, tally.count)
                : new RunReport.OutcomeSummary(outcome, tally.count, tally.latenciesMicros.copy(), tally.minMicros, tally.maxMicros)));
        return summaries;
    }

    private Tally tally(Outcome outcome) {
        return tallies.computeIfAbsent(outcome, o -> new Tally());
    }

    /** One outcome's count; its latencies once one is recorded. */
    private static final class Tally {
        long count;
        Histogram latenciesMicros;
        long minMicros = Long.MAX_VALUE;
        long maxMicros;

        void record(long micros) {
            if (latenciesMicros == null) {
                latenciesMicros = new Histogram(SIGNIFICANT_DIGITS);
            }
            latenciesMicros.recordValue(micros);
            minMicros = Math.min(minMicros, micros);
            maxMicros = Math.max(maxMicros, micros);
            count++;
        }
    }
}
