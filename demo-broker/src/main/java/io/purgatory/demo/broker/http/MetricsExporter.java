package io.purgatory.demo.broker.http;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.SummaryWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.purgatory.LatencyHistogram;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupState;
import io.purgatory.demo.broker.metrics.BrokerStats.FetchOutcome;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The broker's metrics in the Prometheus text exposition format, written by the Prometheus Java
 * client ({@code prometheus-metrics-core} callbacks read the live values at each scrape):
 *
 * <ul>
 *   <li>per purgatory ({@code purgatory} label: produce, fetch, rebalance, heartbeat): {@code purgatory_operations_completed_total},
 *       {@code purgatory_operations_expired_total}, {@code purgatory_watches_purged_total},
 *       {@code purgatory_delayed_operations}, {@code purgatory_watched_operations}, and the expiry
 *       lateness as a summary {@code purgatory_expiry_lateness_seconds} (quantiles 0.5, 0.9, 0.99,
 *       0.999 from the purgatory's histogram; {@code _count} and {@code _sum} exact) with
 *       {@code purgatory_expiry_lateness_max_seconds};</li>
 *   <li>the Kafka listener: {@code demo_broker_requests_total} by {@code api},
 *       {@code demo_broker_response_codes_total} by {@code api} and {@code code} (the codes Kafka's
 *       {@code AbstractResponse.errorCounts()} counts: one per partition for produce; {@code NONE}
 *       is success, so the series is not named for errors), {@code demo_broker_fetch_responses_total} by {@code outcome}
 *       ({@link FetchOutcome#label()}), {@code demo_broker_connections},
 *       {@code demo_broker_received_bytes_total}, {@code demo_broker_sent_bytes_total};</li>
 *   <li>replication: {@code demo_broker_log_end_offset} by {@code topic}, {@code partition} and
 *       {@code replica}, {@code demo_broker_high_watermark}, {@code demo_broker_isr_size},
 *       {@code demo_broker_min_insync_replicas}, {@code demo_broker_replica_stalled} by
 *       {@code replica};</li>
 *   <li>groups: {@code demo_broker_groups} by {@code state}, {@code demo_broker_group_rebalances_total},
 *       {@code demo_broker_group_members_expired_total}, and kafka-exporter's
 *       {@code kafka_consumergroup_members} by {@code consumergroup},
 *       {@code kafka_consumergroup_current_offset} and {@code kafka_consumergroup_lag} by
 *       {@code consumergroup}, {@code topic} and {@code partition} (lag behind the high watermark).</li>
 * </ul>
 *
 * <p>Thread-safe: the registry is built in the constructor and only read afterwards; the callbacks
 * read thread-safe broker state.
 */
public final class MetricsExporter {
    /** The {@code Content-Type} of {@link #scrape()}. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = new PrometheusTextFormatWriter(false);

    MetricsExporter(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats) {
        registerPurgatories(purgatories(replicaManager, coordinator));
        registerListener(stats);
        registerReplication(replicaManager);
        registerGroups(coordinator, replicaManager);
    }

    /** Every purgatory of the broker: the replica manager's (produce, fetch), then the coordinator's (rebalance, heartbeat). */
    static List<PurgatoryMetrics> purgatories(ReplicaManager replicaManager, GroupCoordinator coordinator) {
        List<PurgatoryMetrics> all = new ArrayList<>(replicaManager.purgatoryMetrics());
        all.add(coordinator.rebalancePurgatoryMetrics());
        all.add(coordinator.heartbeatPurgatoryMetrics());
        return all;
    }

    private void registerGroups(GroupCoordinator coordinator, ReplicaManager replicaManager) {
        GaugeWithCallback.builder().name("demo_broker_groups")
                .help("Consumer groups the coordinator holds now, by state (Kafka's names: Empty, PreparingRebalance,"
                        + " CompletingRebalance, Stable)").labelNames("state")
                .callback(cb -> {
                    Map<GroupState, Integer> counts = new EnumMap<>(GroupState.class);
                    coordinator.listGroups(Set.of()).forEach(g -> counts.merge(g.state(), 1, Integer::sum));
                    for (GroupState state : GroupState.values()) {
                        if (state != GroupState.DEAD) {
                            cb.call(counts.getOrDefault(state, 0), state.kafkaName());
                        }
                    }
                }).register(registry);
        CounterWithCallback.builder().name("demo_broker_group_rebalances")
                .help("Rebalances completed: generations started by the group coordinator, empty ones included")
                .callback(cb -> cb.call(coordinator.rebalances())).register(registry);
        CounterWithCallback.builder().name("demo_broker_group_members_expired")
                .help("Group members removed because no heartbeat came within their session timeout (a DelayedHeartbeat expired)")
                .callback(cb -> cb.call(coordinator.membersExpired())).register(registry);
        GaugeWithCallback.builder().name("kafka_consumergroup_members")
                .help("Members of the consumer group now (kafka-exporter's name)").labelNames("consumergroup")
                .callback(cb -> GroupsView.of(coordinator, replicaManager).forEach(g -> cb.call(g.members().size(), g.groupId())))
                .register(registry);
        GaugeWithCallback.builder().name("kafka_consumergroup_current_offset")
                .help("The group's committed offset of the partition (kafka-exporter's name)").labelNames("consumergroup", "topic", "partition")
                .callback(cb -> GroupsView.of(coordinator, replicaManager).forEach(g -> g.offsets().forEach(o ->
                        cb.call(o.committed(), g.groupId(), o.topic(), String.valueOf(o.partition()))))).register(registry);
        GaugeWithCallback.builder().name("kafka_consumergroup_lag")
                .help("The partition's high watermark minus the group's committed offset: records the group has yet to read"
                        + " (kafka-exporter's name and labels)").labelNames("consumergroup", "topic", "partition")
                .callback(cb -> GroupsView.of(coordinator, replicaManager).forEach(g -> g.offsets().forEach(o ->
                        cb.call(o.lag(), g.groupId(), o.topic(), String.valueOf(o.partition()))))).register(registry);
    }

    /** The current metrics, as Prometheus text. */
    byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writing to memory", e);
        }
        return out.toByteArray();
    }

    private void registerPurgatories(List<PurgatoryMetrics> purgatories) {
        CounterWithCallback.builder().name("purgatory_operations_completed")
                .help("Operations of this purgatory completed before their timeout: their condition was met (tryComplete)"
                        + " or the broker completed them (forceComplete)").labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.completed(), p.getName()))).register(registry);
        CounterWithCallback.builder().name("purgatory_operations_expired")
                .help("Operations of this purgatory that reached their timeout and expired (those expired by close() included)")
                .labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.expired(), p.getName()))).register(registry);
        CounterWithCallback.builder().name("purgatory_watches_purged")
                .help("Watch-list entries of completed operations removed by this purgatory's purges (housekeeping, not operations)")
                .labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.purged(), p.getName()))).register(registry);
        GaugeWithCallback.builder().name("purgatory_delayed_operations")
                .help("Operations parked in this purgatory now, waiting for their condition or their timeout").labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.delayed(), p.getName()))).register(registry);
        GaugeWithCallback.builder().name("purgatory_watched_operations")
                .help("Watch-list entries this purgatory holds now, one per operation and key, completed operations' entries"
                        + " not yet purged included")
                .labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.watched(), p.getName()))).register(registry);
        SummaryWithCallback.builder().name("purgatory_expiry_lateness_seconds")
                .help("How long after its deadline each expired operation of this purgatory expired, in seconds on the timer's"
                        + " clock, since the broker started: quantiles from a histogram of whole milliseconds (at most 6.25% above"
                        + " the true value); _count and _sum exact")
                .labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> {
                    LatencyHistogram lateness = p.expiryLateness();
                    Quantiles.Builder quantiles = Quantiles.builder();
                    for (double q : QUANTILES) {
                        quantiles.quantile(new Quantile(q, lateness.valueAtPercentileMs(q * 100) / 1000.0));
                    }
                    cb.call(lateness.count(), lateness.sumMs() / 1000.0, quantiles.build(), p.getName());
                })).register(registry);
        GaugeWithCallback.builder().name("purgatory_expiry_lateness_max_seconds")
                .help("The largest expiry lateness of this purgatory since the broker started, in seconds past the deadline")
                .labelNames("purgatory")
                .callback(cb -> purgatories.forEach(p -> cb.call(p.expiryLateness().maxMs() / 1000.0, p.getName())))
                .register(registry);
    }

    private void registerListener(BrokerStats stats) {
        CounterWithCallback.builder().name("demo_broker_requests")
                .help("Kafka requests received and parsed, by API").labelNames("api")
                .callback(cb -> stats.requests().forEach((api, count) -> cb.call(count, api.name)))
                .register(registry);
        CounterWithCallback.builder().name("demo_broker_response_codes")
                .help("Codes in Kafka responses by API and code, as Kafka's AbstractResponse.errorCounts() counts them (one per"
                        + " partition for Produce): NONE is success, any other code an error")
                .labelNames("api", "code")
                .callback(cb -> stats.responseErrors().forEach((key, count) -> cb.call(count, key.api().name, key.error().name())))
                .register(registry);
        CounterWithCallback.builder().name("demo_broker_fetch_responses")
                .help("Fetch responses by outcome: data (records on some partition), empty_max_wait (parked until max.wait.ms"
                        + " passed), empty_at_once (empty without waiting), error (an error code, top-level or on a partition)")
                .labelNames("outcome")
                .callback(cb -> {
                    for (FetchOutcome outcome : FetchOutcome.values()) {
                        cb.call(stats.fetchResponses(outcome), outcome.label());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("demo_broker_connections")
                .help("Kafka client connections open now (the dashboard's HTTP connections not included)")
                .callback(cb -> cb.call(stats.connections())).register(registry);
        CounterWithCallback.builder().name("demo_broker_received_bytes")
                .help("Bytes read from Kafka clients, length prefixes included")
                .callback(cb -> cb.call(stats.bytesIn())).register(registry);
        CounterWithCallback.builder().name("demo_broker_sent_bytes")
                .help("Bytes written to Kafka clients, length prefixes included")
                .callback(cb -> cb.call(stats.bytesOut())).register(registry);
    }

    private void registerReplication(ReplicaManager replicaManager) {
        GaugeWithCallback.builder().name("demo_broker_log_end_offset")
                .help("Log end offset of each replica of each partition (replica 0 is the leader)")
                .labelNames("topic", "partition", "replica")
                .callback(cb -> replicaManager.partitionStates().forEach(p -> {
                    String partition = String.valueOf(p.partition());
                    cb.call(p.leaderEndOffset(), p.topic(), partition, "0");
                    for (int i = 0; i < p.followerEndOffsets().size(); i++) {
                        cb.call(p.followerEndOffsets().get(i), p.topic(), partition, String.valueOf(i + 1));
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("demo_broker_high_watermark")
                .help("High watermark of each partition: the smallest log end offset in its ISR")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.partitionStates().forEach(p ->
                        cb.call(p.highWatermark(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_log_start_offset")
                .help("Log start offset of each partition's leader: retention and DeleteRecords move it; fetching below it gets OFFSET_OUT_OF_RANGE")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.partitionStates().forEach(p ->
                        cb.call(p.logStartOffset(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_low_watermark")
                .help("Low watermark of each partition: the smallest log start offset in its ISR (a DeleteRecords waits for it)")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.partitionStates().forEach(p ->
                        cb.call(p.lowWatermark(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_isr_size")
                .help("How many replicas of each partition are in its ISR, leader included")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.partitionStates().forEach(p ->
                        cb.call(p.isr().size(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_min_insync_replicas")
                .help("The min.insync.replicas setting of each partition: an acks=-1 produce needs that many replicas in the ISR")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.partitionStates().forEach(p ->
                        cb.call(p.minInsyncReplicas(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_replica_stalled")
                .help("1 while a simulated follower replica is stalled (fetches nothing), else 0")
                .labelNames("replica")
                .callback(cb -> {
                    for (int id = 1; id <= replicaManager.followers().count(); id++) {
                        cb.call(replicaManager.followers().isStalled(id) ? 1 : 0, String.valueOf(id));
                    }
                }).register(registry);
    }
}
