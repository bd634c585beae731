package io.purgatory.demo.client;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What a run did, for the summary and the exit code.
 *
 * <p>Immutable by convention: the histograms are copies that nobody records into; share the report
 * freely but do not write to them.
 *
 * @param options the run's settings
 * @param setup the versions and topic the handshake found
 * @param elapsedNanos from the first send until the last outcome (or the disconnect)
 * @param sendingNanos from the first send to the last
 * @param sent requests sent
 * @param notSent requests never sent, because the connection was lost first
 * @param outcomes each outcome that occurred, in {@link Outcome#ORDER}
 * @param disconnect why and how the connection was lost mid-run; {@code null} if it was not
 * @param interrupted how the run was stopped by the user (Ctrl-C, SIGTERM); {@code null} if it was not
 */
record RunReport(
        ClientOptions options,
        Handshake.Result setup,
        long elapsedNanos,
        long sendingNanos,
        long sent,
        long notSent,
        List<OutcomeSummary> outcomes,
        Disconnect disconnect,
        Interrupted interrupted) {

    RunReport {
        outcomes = List.copyOf(outcomes);
    }

    /**
     * One outcome's count and latencies.
     *
     * @param latenciesMicros send-to-outcome latencies in microseconds, to 3 significant digits;
     *     {@code null} for an outcome without latencies (acks=0 requests)
     * @param minMicros the smallest latency, exactly (0 without latencies)
     * @param maxMicros the largest latency, exactly (0 without latencies)
     */
    record OutcomeSummary(Outcome outcome, long count, Histogram latenciesMicros, long minMicros, long maxMicros) {
        static OutcomeSummary withoutLatencies(Outcome outcome, long count) {
            return new OutcomeSummary(outcome, count, null, 0, 0);
        }
    }

    /**
     * The connection was lost during the load.
     *
     * @param reason e.g. "closed by the broker", "Connection reset by peer", "protocol error: ..."
     * @param inFlight requests in flight at that moment (they end "disconnected")
     */
    record Disconnect(String reason, long inFlight) {
    }

    /**
     * The user stopped the run.
     *
     * @param inFlight requests in flight at that moment; they have no outcome
     */
    record Interrupted(long inFlight) {
    }

    long count(Outcome outcome) {
        return outcomes.stream().filter(s -> s.outcome().equals(outcome)).mapToLong(OutcomeSummary::count).sum();
    }

    /**
     * Whether every request was sent and got an outcome the broker decided (acked, timed out, an
     * error code) or, with acks=0, was written: then the run exits 0.
     */
    boolean complete() {
        return notSent == 0 && disconnect == null && interrupted == null && outcomes.stream().noneMatch(s -> s.outcome().isLost());
    }
}
