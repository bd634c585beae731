package io.purgatory.demo.broker.http;

import io.purgatory.LatencyHistogram;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.metrics.BrokerStats.FetchOutcome;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Reads the broker's state into one JSON sample for the dashboard: produce and fetch outcomes
 * (totals, and rates per second since the previous sample), parked operations and expiry lateness per
 * purgatory, each follower's state, each partition's offsets and ISR, connections and bytes.
 *
 * <p>Produce outcomes are error codes in produce responses, one per partition: {@code NONE} is
 * acked, {@code REQUEST_TIMED_OUT} timed out, anything else an other error. Fetch outcomes are
 * fetch responses by {@link FetchOutcome}, as {@code fetch.dataTotal}, {@code fetch.dataPerSec},
 * {@code fetch.emptyMaxWaitTotal}, {@code fetch.emptyAtOnceTotal}, {@code fetch.errorTotal} and so
 * on.
 *
 * <p>Not thread-safe: the previous totals and time are confined to the thread that calls
 * {@link #sample()} (the HTTP event loop).
 */
public final class Sampler {
    private final ReplicaManager replicaManager;
    private final BrokerStats stats;
    private long previousNanos;
    private long previousAcked;
    private long previousTimedOut;
    private long previousOtherErrors;
    /** The previous fetch outcome totals, by ordinal. */
    private final long[] previousFetches = new long[FetchOutcome.values().length];

    Sampler(ReplicaManager replicaManager, BrokerStats stats) {
        this.replicaManager = replicaManager;
        this.stats = stats;
        this.previousNanos = System.nanoTime();
    }

    /** A sample of now, with rates since the previous call (or since construction). */
    String sample() {
        long nowNanos = System.nanoTime();
        double seconds = Math.max(1e-3, (nowNanos - previousNanos) / 1e9);
        ProduceOutcomes outcomes = ProduceOutcomes.of(stats);
        JsonWriter json = new JsonWriter().beginObject();
        json.name("timeMs").value(System.currentTimeMillis());
        json.name("produce").beginObject()
                .name("ackedTotal").value(outcomes.acked())
                .name("timedOutTotal").value(outcomes.timedOut())
                .name("otherErrorsTotal").value(outcomes.otherErrors())
                .name("ackedPerSec").value((outcomes.acked() - previousAcked) / seconds)
                .name("timedOutPerSec").value((outcomes.timedOut() - previousTimedOut) / seconds)
                .name("otherErrorsPerSec").value((outcomes.otherErrors() - previousOtherErrors) / seconds)
                .endObject();
        previousNanos = nowNanos;
        previousAcked = outcomes.acked();
        previousTimedOut = outcomes.timedOut();
        previousOtherErrors = outcomes.otherErrors();

        json.name("fetch").beginObject();
        for (FetchOutcome outcome : FetchOutcome.values()) {
            long total = stats.fetchResponses(outcome);
            json.name(key(outcome) + "Total").value(total)
                    .name(key(outcome) + "PerSec").value((total - previousFetches[outcome.ordinal()]) / seconds);
            previousFetches[outcome.ordinal()] = total;
        }
        json.endObject();

        json.name("purgatories").beginArray();
        for (PurgatoryMetrics metrics : replicaManager.purgatoryMetrics()) {
            LatencyHistogram lateness = metrics.expiryLateness();
            json.beginObject()
                    .name("name").value(metrics.getName())
                    .name("delayed").value(metrics.delayed())
                    .name("watched").value(metrics.watched())
                    .name("completed").value(metrics.completed())
                    .name("expired").value(metrics.expired())
                    .name("latenessCount").value(lateness.count())
                    .name("latenessP50Ms").value(lateness.valueAtPercentileMs(50))
                    .name("latenessP99Ms").value(lateness.valueAtPercentileMs(99))
                    .name("latenessP999Ms").value(lateness.valueAtPercentileMs(99.9))
                    .name("latenessMaxMs").value(lateness.maxMs())
                    .endObject();
        }
        json.endArray();

        json.name("replicas").beginArray();
        for (int id = 1; id <= replicaManager.followers().count(); id++) {
            json.beginObject()
                    .name("id").value(id)
                    .name("stalled").value(replicaManager.followers().isStalled(id))
                    .name("lagMs").value(replicaManager.followers().lagMs(id))
                    .endObject();
        }
        json.endArray();

        json.name("partitions").beginArray();
        for (PartitionState partition : replicaManager.partitionStates()) {
            json.beginObject()
                    .name("topic").value(partition.topic())
                    .name("partition").value(partition.partition())
                    .name("leaderEndOffset").value(partition.leaderEndOffset())
                    .name("highWatermark").value(partition.highWatermark())
                    .name("followerEndOffsets").beginArray();
            partition.followerEndOffsets().forEach(json::value);
            json.endArray().name("isr").beginArray();
            partition.isr().forEach(id -> json.value(id.longValue()));
            json.endArray().name("minInsyncReplicas").value(partition.minInsyncReplicas()).endObject();
        }
        json.endArray();

        json.name("connections").value(stats.connections())
                .name("bytesIn").value(stats.bytesIn())
                .name("bytesOut").value(stats.bytesOut());
        return json.endObject().toString();
    }

    /** The JSON name of a fetch outcome, before {@code Total} or {@code PerSec}. */
    private static String key(FetchOutcome outcome) {
        return switch (outcome) {
            case DATA -> "data";
            case EMPTY_MAX_WAIT -> "emptyMaxWait";
            case EMPTY_AT_ONCE -> "emptyAtOnce";
            case ERROR -> "error";
        };
    }

    /** Produce response error codes, grouped as the dashboard shows them. */
    record ProduceOutcomes(long acked, long timedOut, long otherErrors) {
        static ProduceOutcomes of(BrokerStats stats) {
            long acked = 0;
            long timedOut = 0;
            long other = 0;
            for (Map.Entry<BrokerStats.ApiError, Long> entry : stats.responseErrors().entrySet()) {
                if (entry.getKey().api() != ApiKeys.PRODUCE) {
                    continue;
                }
                if (entry.getKey().error() == Errors.NONE) {
                    acked += entry.getValue();
                } else if (entry.getKey().error() == Errors.REQUEST_TIMED_OUT) {
                    timedOut += entry.getValue();
                } else {
                    other += entry.getValue();
                }
            }
            return new ProduceOutcomes(acked, timedOut, other);
        }
    }
}
