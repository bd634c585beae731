package io.purgatory.demo.broker.http;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupState;
import io.purgatory.demo.broker.metrics.BrokerStats.FetchOutcome;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.server.ReplicaManager;
import io.purgatory.micrometer.PurgatoryMeterBinder;
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
 * client, one registry for both kinds:
 *
 * <ul>
 *   <li>per purgatory ({@code purgatory} label: produce, fetch, delete-records, rebalance,
 *       heartbeat): the meters of purgatory-micrometer's {@link PurgatoryMeterBinder}, through a
 *       Micrometer {@link PrometheusMeterRegistry}, named as {@link PurgatoryMetrics.Quantity}
 *       names them (the same names as any application that binds a purgatory);</li>
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
 *       {@code consumergroup}, {@code topic} and {@code partition} (lag behind the high watermark);</li>
 *   <li>the memory budget: {@code demo_broker_memory_budget_bytes}, {@code demo_broker_memory_budget_used_bytes}
 *       and {@code demo_broker_memory_budget_refusals_total} by {@code kind}.</li>
 * </ul>
 *
 * <p>The broker's own metrics below are {@code prometheus-metrics-core} callbacks, which read the
 * live values at each scrape: their label sets change as topics and groups come and go, which
 * Micrometer's fixed meters do not model. docs/demo.md lists every family; {@code MetricsDocTest}
 * holds that table to the scrape.
 *
 * <p>Thread-safe: the registry is built in the constructor and only read afterwards; the callbacks
 * read thread-safe broker state.
 */
public final class MetricsExporter {
    /** The {@code Content-Type} of {@link #scrape()}. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = new PrometheusTextFormatWriter(false);

    MetricsExporter(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats) {
        registerPurgatories(purgatories(replicaManager, coordinator));
        registerListener(stats);
        registerReplication(replicaManager);
        registerGroups(coordinator, replicaManager);
        registerMemoryBudget(replicaManager.memoryBudget());
    }

    /** The memory budget: its size, what each kind holds, the refusals past each kind's share. */
    private void registerMemoryBudget(MemoryBudget budget) {
        GaugeWithCallback.builder().name("demo_broker_memory_budget_bytes")
                .help("The memory budget for what clients make the broker hold (--memory-budget-bytes)")
                .callback(cb -> cb.call(budget.limitBytes())).register(registry);
        GaugeWithCallback.builder().name("demo_broker_memory_budget_used_bytes")
                .help("What each kind holds in the memory budget now, in estimated heap bytes").labelNames("kind")
                .callback(cb -> {
                    for (MemoryBudget.Kind kind : MemoryBudget.Kind.values()) {
                        cb.call(budget.used(kind), kind.label());
                    }
                }).register(registry);
        CounterWithCallback.builder().name("demo_broker_memory_budget_refusals")
                .help("Requests refused for want of room in a kind's share of the memory budget").labelNames("kind")
                .callback(cb -> {
                    for (MemoryBudget.Kind kind : MemoryBudget.Kind.values()) {
                        cb.call(budget.refusals(kind), kind.label());
                    }
                }).register(registry);
    }

    /** Every purgatory of the broker: the replica manager's (produce, fetch), then the coordinator's (rebalance, heartbeat). */
    static List<PurgatoryMetrics> purgatories(ReplicaManager replicaManager, GroupCoordinator coordinator) {
        List<PurgatoryMetrics> all = new ArrayList<>(replicaManager.purgatoryMetrics());
        all.addAll(coordinator.purgatoryMetrics());
        return all;
    }

    private void registerGroups(GroupCoordinator coordinator, ReplicaManager replicaManager) {
        GaugeWithCallback.builder().name("demo_broker_groups")
                .help("Consumer groups the coordinator holds now, by state (Kafka's names: Empty, PreparingRebalance,"
                        + " CompletingRebalance, Stable)").labelNames("state")
                .callback(cb -> {
                    Map<GroupState, Integer> counts = new EnumMap<>(GroupState.class);
                    coordinator.admin().listGroups(Set.of()).forEach(g -> counts.merge(g.state(), 1, Integer::sum));
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

    /**
     * The purgatories' meters, as any application gets them: purgatory-micrometer's binder on a
     * Micrometer Prometheus registry that writes into this exporter's Prometheus registry.
     */
    private void registerPurgatories(List<PurgatoryMetrics> purgatories) {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, registry, Clock.SYSTEM);
        purgatories.forEach(metrics -> new PurgatoryMeterBinder(metrics, Tags.empty()).bindTo(meters));
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
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p -> {
                    String partition = String.valueOf(p.partition());
                    cb.call(p.leaderEndOffset(), p.topic(), partition, "0");
                    for (int i = 0; i < p.followerEndOffsets().size(); i++) {
                        cb.call(p.followerEndOffsets().get(i), p.topic(), partition, String.valueOf(i + 1));
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("demo_broker_high_watermark")
                .help("High watermark of each partition: the smallest log end offset in its ISR")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p ->
                        cb.call(p.highWatermark(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_log_start_offset")
                .help("Log start offset of each partition's leader: retention and DeleteRecords move it; fetching below it gets OFFSET_OUT_OF_RANGE")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p ->
                        cb.call(p.logStartOffset(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_low_watermark")
                .help("Low watermark of each partition: the smallest log start offset in its ISR (a DeleteRecords waits for it)")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p ->
                        cb.call(p.lowWatermark(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_isr_size")
                .help("How many replicas of each partition are in its ISR, leader included")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p ->
                        cb.call(p.isr().size(), p.topic(), String.valueOf(p.partition())))).register(registry);
        GaugeWithCallback.builder().name("demo_broker_min_insync_replicas")
                .help("The min.insync.replicas setting of each partition: an acks=-1 produce needs that many replicas in the ISR")
                .labelNames("topic", "partition")
                .callback(cb -> replicaManager.topics().partitionStates().forEach(p ->
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
