package io.purgatory.demo.broker.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.metrics.BrokerStats.FetchOutcome;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Reads the broker's state into one JSON sample for the dashboard: produce and fetch outcomes
 * (totals, and rates per second since the previous sample), parked operations and expiry lateness per
 * purgatory (produce, fetch, rebalance, heartbeat), each follower's state, partitions' offsets and
 * ISR, consumer groups ({@link GroupsView#top}), connections and bytes. The sample is a tree of
 * records ({@link Sample} at the top), written by Jackson.
 *
 * <p>A sample is bounded whatever the broker holds, so that the dashboard's history is too
 * ({@link EventStream}): it shows the {@value #PARTITIONS_SHOWN} partitions with the fewest in-sync
 * replicas (then the most records) and the {@value #GROUPS_SHOWN} groups of most lag, each cut as
 * {@link GroupsView} says, with the counts of all; at most {@link #MAX_SAMPLE_CHARS} characters of
 * JSON (a bound worked out from those limits, checked by {@code DashboardMemoryTest}).
 *
 * <p>Produce outcomes are error codes in produce responses, one per partition: {@code NONE} is
 * acked, {@code REQUEST_TIMED_OUT} timed out, anything else an other error. Fetch outcomes are
 * fetch responses by {@link FetchOutcome}, as {@code fetch.dataTotal}, {@code fetch.dataPerSec},
 * {@code fetch.emptyMaxWaitTotal}, {@code fetch.emptyAtOnceTotal}, {@code fetch.errorTotal} and so
 * on.
 *
 * <p>Not thread-safe: the previous totals and time are confined to the thread that calls
 * {@link #sample()} (the HTTP event loop). {@link #json} is thread-safe.
 */
public final class Sampler {
    /** Partitions a sample shows at most. */
    static final int PARTITIONS_SHOWN = 100;
    /** Groups a sample shows at most. */
    static final int GROUPS_SHOWN = 10;
    /**
     * A bound on a sample's JSON: {@value #GROUPS_SHOWN} groups, each 8 KiB (up to 6 cut strings of
     * {@value GroupsView#MAX_STRING_CHARS} characters, 6 characters each when JSON escapes them) with
     * {@value GroupsView#MEMBERS_SHOWN} members of 8 KiB (4 cut strings and
     * {@value GroupsView#ASSIGNMENT_SHOWN} assigned partitions of up to 260 characters) and
     * {@value GroupsView#OFFSETS_SHOWN} offsets of 512 characters; {@value #PARTITIONS_SHOWN}
     * partitions of 1 KiB (a 249-character name, numbers, a few replicas); 16 KiB for the rest.
     */
    static final int MAX_SAMPLE_CHARS = GROUPS_SHOWN * (8_192 + GroupsView.MEMBERS_SHOWN * 8_192 + GroupsView.OFFSETS_SHOWN * 512)
            + PARTITIONS_SHOWN * 1_024 + 16_384;
    /** Configured once, then only used: thread-safe. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReplicaManager replicaManager;
    private final GroupCoordinator coordinator;
    private final BrokerStats stats;
    private long previousNanos;
    private ProduceOutcomes previousProduce = new ProduceOutcomes(0, 0, 0);
    /** The previous fetch outcome totals, by ordinal. */
    private final long[] previousFetches = new long[FetchOutcome.values().length];

    /** One sample: what {@code /api/state} answers and {@code /events} sends each second. */
    record Sample(long timeMs, Produce produce, Map<String, Number> fetch, List<PurgatoryMetrics.Snapshot> purgatories, List<Replica> replicas,
                  List<PartitionState> partitions, List<GroupsView.Group> groups, long connections, long bytesIn, long bytesOut,
                  int partitionCount, int groupCount) {
    }

    /** Produce outcomes, one per partition of each produce response: totals, and rates since the previous sample. */
    record Produce(long ackedTotal, long timedOutTotal, long otherErrorsTotal, double ackedPerSec, double timedOutPerSec,
                   double otherErrorsPerSec) {
    }

    /** A simulated follower: stalled or fetching, and its mean fetch lag. Also what the replica controls answer. */
    record Replica(int id, boolean stalled, long lagMs) {
        static Replica of(SimulatedFollowers followers, int id) {
            return new Replica(id, followers.isStalled(id), followers.lagMs(id));
        }
    }

    Sampler(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats) {
        this.replicaManager = replicaManager;
        this.coordinator = coordinator;
        this.stats = stats;
        this.previousNanos = System.nanoTime();
    }

    /** A sample of now, with rates since the previous call (or since construction), as JSON. */
    String sample() {
        long nowNanos = System.nanoTime();
        double seconds = Math.max(1e-3, (nowNanos - previousNanos) / 1e9);
        previousNanos = nowNanos;
        List<PartitionState> partitions = replicaManager.topics().partitionStates();
        return json(new Sample(System.currentTimeMillis(), produce(seconds), fetch(seconds), purgatories(), replicas(), mostAtRisk(partitions),
                GroupsView.top(coordinator, replicaManager, GROUPS_SHOWN), stats.connections(), stats.bytesIn(), stats.bytesOut(),
                partitions.size(), coordinator.groupCount()));
    }

    /** The {@value #PARTITIONS_SHOWN} partitions with the fewest in-sync replicas, then the most records, by topic and partition. */
    private static List<PartitionState> mostAtRisk(List<PartitionState> partitions) {
        if (partitions.size() <= PARTITIONS_SHOWN) {
            return partitions;
        }
        List<PartitionState> shown = new ArrayList<>(partitions);
        shown.sort(Comparator.<PartitionState>comparingInt(p -> p.isr().size()).thenComparing(PartitionState::highWatermark, Comparator.reverseOrder()));
        shown = new ArrayList<>(shown.subList(0, PARTITIONS_SHOWN));
        shown.sort(Comparator.comparing(PartitionState::topic).thenComparingInt(PartitionState::partition));
        return shown;
    }

    /** {@code value} as JSON. */
    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private Produce produce(double seconds) {
        ProduceOutcomes now = ProduceOutcomes.of(stats);
        ProduceOutcomes before = previousProduce;
        previousProduce = now;
        return new Produce(now.acked(), now.timedOut(), now.otherErrors(), perSecond(now.acked() - before.acked(), seconds),
                perSecond(now.timedOut() - before.timedOut(), seconds), perSecond(now.otherErrors() - before.otherErrors(), seconds));
    }

    private Map<String, Number> fetch(double seconds) {
        Map<String, Number> fetch = new LinkedHashMap<>();
        for (FetchOutcome outcome : FetchOutcome.values()) {
            long total = stats.fetchResponses(outcome);
            fetch.put(key(outcome) + "Total", total);
            fetch.put(key(outcome) + "PerSec", perSecond(total - previousFetches[outcome.ordinal()], seconds));
            previousFetches[outcome.ordinal()] = total;
        }
        return fetch;
    }

    /** Each purgatory's {@link PurgatoryMetrics#snapshot()}: its quantities under their one name each. */
    private List<PurgatoryMetrics.Snapshot> purgatories() {
        return MetricsExporter.purgatories(replicaManager, coordinator).stream().map(PurgatoryMetrics::snapshot).toList();
    }

    private List<Replica> replicas() {
        List<Replica> replicas = new ArrayList<>();
        for (int id = 1; id <= replicaManager.followers().count(); id++) {
            replicas.add(Replica.of(replicaManager.followers(), id));
        }
        return replicas;
    }

    /** A rate, rounded to three decimals: enough for the page, and short on the wire. */
    private static double perSecond(long delta, double seconds) {
        return Math.round(delta / seconds * 1000) / 1000.0;
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
