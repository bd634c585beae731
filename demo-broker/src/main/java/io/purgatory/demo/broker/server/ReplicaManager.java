package io.purgatory.demo.broker.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.DynamicSetting;
import io.purgatory.demo.broker.log.LogConfig;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionFetch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's topics and partitions, and the paths that park requests on them.
 *
 * <p>The produce path: appends on the leader, answers {@code acks=0/1} at once and parks
 * {@code acks=-1} produces as {@link DelayedProduce}s in the {@code produce} purgatory, each
 * watching its partitions at the end offsets it needs. A follower fetch that moves a partition's
 * high watermark calls {@code advance(partition, highWatermark)}, which tries only the produces
 * that the new high watermark can complete; an ISR change (rare) calls
 * {@code checkAndComplete(partition)}, which tries them all, as a leader change would (a shrink
 * raises the high watermark, and settles produces with {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND}
 * when it leaves the ISR below the minimum). Both come from the follower thread with no partition
 * lock held.
 *
 * <p>The fetch path: {@link #fetchMessages} answers a fetch at once when it can, and otherwise
 * parks it as a {@link DelayedFetch} in the {@code fetch} purgatory. Every high watermark move
 * (from a follower fetch, an ISR change, or an append while the ISR is the leader alone) tells
 * that purgatory too.
 *
 * <p>The delete-records path: {@link #deleteRecords} moves each partition's log start offset on the
 * leader at once and parks a {@link DelayedDeleteRecords} in the {@code delete-records} purgatory,
 * watching each partition at the requested offset; a follower fetch that moves a partition's low
 * watermark calls {@code advance(partition, lowWatermark)}.
 *
 * <p>Topics at runtime, as Kafka's controller and {@code ReplicaManager} between them:
 * {@link #createTopic}, {@link #createPartitions}, {@link #deleteTopic} and the config changes
 * ({@link #alterTopicConfigs}, {@link #alterBrokerConfigs}). Deleting a topic marks its
 * partitions deleted and then re-checks, in each purgatory, what is parked on them
 * ({@code checkAndComplete}): a parked produce answers {@code UNKNOWN_TOPIC_OR_PARTITION} for those
 * partitions (and keeps waiting for any other topic's, as Kafka's {@code DelayedProduce} does), a
 * parked fetch answers at once, a parked delete-records answers {@code UNKNOWN_TOPIC_OR_PARTITION}.
 * An operation that parks while the deletion runs sees the mark in its own {@code tryComplete}
 * (the purgatory tries it again after watching), so none waits for its timeout. A topic created
 * again under the same name gets a new id and new partitions, from offset 0. Changing
 * {@code min.insync.replicas} re-checks the produces parked on the topic's partitions the same way.
 *
 * <p>Thread-safe. {@code metadataLock} guards every change to the topic maps, the topics'
 * configs, the broker's dynamic configs ({@link DynamicConfigs}) and {@code partitionCount}, so
 * creates, deletes and alters are serialised and see one another whole; the maps are concurrent, so
 * the request paths read them without the lock (a {@link Topic} is immutable and replaced whole).
 * Lock order: {@code metadataLock}, then a partition's lock; no purgatory is called under
 * {@code metadataLock}. Partition state is guarded by each {@link Partition}; the purgatories and
 * {@link SimulatedFollowers} are thread-safe; {@code stopped} is volatile, set once by
 * {@link #close()}.
 */
public final class ReplicaManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);

    private final BrokerConfig config;
    private final Object metadataLock = new Object();
    /** Topics by name, in name order; written under {@code metadataLock}. */
    private final ConcurrentSkipListMap<String, Topic> topicsByName = new ConcurrentSkipListMap<>();
    /** Topics by id; written under {@code metadataLock}. */
    private final ConcurrentHashMap<Uuid, Topic> topicsById = new ConcurrentHashMap<>();
    /** Names with '.' or '_' by their unified form (Kafka refuses a topic whose name collides so). */
    @GuardedBy("metadataLock")
    private final Map<String, String> collisionNames = new HashMap<>();
    /** Partitions of every topic. */
    @GuardedBy("metadataLock")
    private int partitionCount;
    private final DynamicConfigs dynamicConfigs;
    private final DelayedOperationPurgatory<DelayedProduce> producePurgatory;
    private final DelayedOperationPurgatory<DelayedFetch> fetchPurgatory;
    private final DelayedOperationPurgatory<DelayedDeleteRecords> deleteRecordsPurgatory;
    private final SimulatedFollowers followers;
    private final int maxParkedRequests;
    private volatile boolean stopped;

    /**
     * A topic: its name, its id (produce v13+, fetch v13+ and metadata use it), its partitions by
     * index, and the configs set on it ({@code min.insync.replicas}, {@code retention.bytes},
     * {@code max.message.bytes}; the others come from the broker). Immutable: a change makes a new one.
     */
    public record Topic(String name, Uuid id, List<Partition> partitions, Map<DynamicSetting, String> configs) {
        public Topic {
            partitions = List.copyOf(partitions);
            configs = configs.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(configs));
        }

        public Partition partition(int index) {
            return index >= 0 && index < partitions.size() ? partitions.get(index) : null;
        }

        /** Replicas per partition: the leader and its followers. */
        public int replicationFactor() {
            return partitions.get(0).followers() + 1;
        }
    }

    /** One partition of a produce request: which entry, where, its validated record batches, or why it is refused already. */
    public record PartitionAppend(ProduceResult.Key key, Partition partition, MemoryRecords records, Errors refused) {
        public static PartitionAppend of(ProduceResult.Key key, Partition partition, MemoryRecords records) {
            return new PartitionAppend(key, partition, records, null);
        }

        static PartitionAppend refused(ProduceResult.Key key, Errors error) {
            return new PartitionAppend(key, null, MemoryRecords.EMPTY, error);
        }
    }

    /** What a create did: the new topic's id ({@link Uuid#ZERO_UUID} when validating only), or why not. */
    public record CreateResult(ApiError error, Uuid topicId) {
        static CreateResult failed(Errors error, String message) {
            return new CreateResult(new ApiError(error, message), Uuid.ZERO_UUID);
        }
    }

    public ReplicaManager(BrokerConfig config) {
        this.config = config;
        this.dynamicConfigs = new DynamicConfigs(config);
        this.producePurgatory = new DelayedOperationPurgatory<>("produce");
        this.fetchPurgatory = new DelayedOperationPurgatory<>("fetch");
        this.deleteRecordsPurgatory = new DelayedOperationPurgatory<>("delete-records");
        this.maxParkedRequests = config.maxParkedRequests();
        this.followers = new SimulatedFollowers(config, List.of(), new SimulatedFollowers.Listener() {
            @Override
            public void highWatermarkMoved(Partition partition, long highWatermark) {
                producePurgatory.advance(partition.topicPartition(), highWatermark);
                fetchesSeeHighWatermark(partition, highWatermark);
            }

            @Override
            public void isrChanged(Partition partition) {
                producePurgatory.checkAndComplete(partition.topicPartition());
                fetchPurgatory.checkAndComplete(partition.topicPartition());
                fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
                deleteRecordsPurgatory.checkAndComplete(partition.topicPartition());
            }

            @Override
            public void lowWatermarkMoved(Partition partition, long lowWatermark) {
                deleteRecordsPurgatory.advance(partition.topicPartition(), lowWatermark);
            }
        });
        config.topics().forEach((name, count) -> {
            CreateResult created = createTopic(name, count, (short) (config.followers() + 1), Map.of(), false);
            if (created.error().isFailure()) {
                throw new IllegalArgumentException("topic " + name + ": " + created.error().messageWithFallback());
            }
        });
    }

    public Topic topic(String name) {
        return name == null ? null : topicsByName.get(name);
    }

    public Topic topic(Uuid id) {
        return id == null ? null : topicsById.get(id);
    }

    /** The topics now, by name. */
    public Collection<Topic> topics() {
        return topicsByName.values();
    }

    /** The broker's settings as it started. */
    public BrokerConfig config() {
        return config;
    }

    DynamicConfigs dynamicConfigs() {
        return dynamicConfigs;
    }

    /** Partitions of every topic now. */
    public int partitionCount() {
        synchronized (metadataLock) {
            return partitionCount;
        }
    }

    /**
     * A partition by topic name and index.
     *
     * @throws IllegalArgumentException if the broker has no such partition
     */
    public Partition partition(String topic, int partition) {
        Topic t = topic(topic);
        Partition p = t == null ? null : t.partition(partition);
        if (p == null) {
            throw new IllegalArgumentException("no partition " + topic + "-" + partition);
        }
        return p;
    }

    /** Every partition's offsets and ISR, topics by name; each partition read atomically. */
    public List<PartitionState> partitionStates() {
        List<PartitionState> states = new ArrayList<>();
        for (Topic topic : topics()) {
            topic.partitions().forEach(partition -> states.add(partition.snapshot()));
        }
        return states;
    }

    /**
     * Creates a topic, as Kafka's controller does once the request is checked (names, counts and
     * configs are the caller's to check): refused with {@code TOPIC_ALREADY_EXISTS} when the name is
     * taken, {@code INVALID_TOPIC_EXCEPTION} when it collides with an existing name ('.' and '_'
     * are the same to Kafka's metrics), {@code POLICY_VIOLATION} when the broker would hold more
     * than {@link BrokerConfig#maxPartitions()} partitions. The topic gets a new random id and
     * partitions from offset 0, followed by {@code replicationFactor - 1} simulated followers.
     *
     * @param configs the topic's own configs, already validated
     * @param validateOnly check only: nothing is created (the result's topic has id zero)
     */
    public CreateResult createTopic(String name, int partitions, short replicationFactor, Map<DynamicSetting, String> configs,
                                    boolean validateOnly) {
        Topic topic;
        synchronized (metadataLock) {
            if (topicsByName.containsKey(name)) {
                return CreateResult.failed(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
            }
            String unified = org.apache.kafka.common.internals.Topic.unifyCollisionChars(name);
            String colliding = collisionNames.get(unified);
            if (colliding != null) {
                return CreateResult.failed(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + name + "' collides with existing topic: " + colliding);
            }
            if ((long) partitionCount + partitions > config.maxPartitions()) {
                return CreateResult.failed(Errors.POLICY_VIOLATION, "Creating " + partitions + " partition(s) would take the broker past its"
                        + " limit of " + config.maxPartitions() + " partitions (" + partitionCount + " now).");
            }
            if (validateOnly) {
                return new CreateResult(ApiError.NONE, Uuid.ZERO_UUID);
            }
            LogConfig logConfig = dynamicConfigs.logConfig(configs);
            topic = new Topic(name, Uuid.randomUuid(), newPartitions(name, 0, partitions, replicationFactor - 1, logConfig), configs);
            topicsByName.put(name, topic);
            topicsById.put(topic.id(), topic);
            if (org.apache.kafka.common.internals.Topic.hasCollisionChars(name)) {
                collisionNames.put(unified, name);
            }
            partitionCount += partitions;
            followers.addPartitions(topic.partitions());
        }
        LOG.info("created topic {} (id {}): {} partition(s), replication factor {}, configs {}", name, topic.id(), partitions,
                replicationFactor, named(configs, DynamicSetting::topicName));
        return new CreateResult(ApiError.NONE, topic.id());
    }

    private List<Partition> newPartitions(String name, int from, int to, int followerCount, LogConfig logConfig) {
        long nowMs = SimulatedFollowers.nowMs();
        long replicaLagTimeMaxMs = dynamicConfigs.replicaLagTimeMaxMs();
        List<Partition> partitions = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            partitions.add(new Partition(new TopicPartition(name, i), followerCount, logConfig, replicaLagTimeMaxMs, nowMs));
        }
        return partitions;
    }

    /**
     * Adds partitions to a topic, up to {@code count} in all, as Kafka's {@code CreatePartitions}:
     * refused with {@code UNKNOWN_TOPIC_OR_PARTITION} for an unknown topic, {@code INVALID_PARTITIONS}
     * for a count that is not an increase, {@code POLICY_VIOLATION} past the broker's partition limit.
     */
    public ApiError createPartitions(String name, int count, boolean validateOnly) {
        synchronized (metadataLock) {
            Topic topic = topicsByName.get(name);
            if (topic == null) {
                return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + name + "' does not exist.");
            }
            int current = topic.partitions().size();
            if (count == current) {
                return new ApiError(Errors.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
            }
            if (count < current) {
                return new ApiError(Errors.INVALID_PARTITIONS, "The topic " + name + " currently has " + current + " partition(s); "
                        + count + " would not be an increase.");
            }
            if ((long) partitionCount + count - current > config.maxPartitions()) {
                return new ApiError(Errors.POLICY_VIOLATION, "Adding " + (count - current) + " partition(s) would take the broker past its"
                        + " limit of " + config.maxPartitions() + " partitions (" + partitionCount + " now).");
            }
            if (validateOnly) {
                return ApiError.NONE;
            }
            List<Partition> added = newPartitions(name, current, count, topic.replicationFactor() - 1, dynamicConfigs.logConfig(topic.configs()));
            List<Partition> all = new ArrayList<>(topic.partitions());
            all.addAll(added);
            replace(new Topic(name, topic.id(), all, topic.configs()));
            partitionCount += added.size();
            followers.addPartitions(added);
        }
        LOG.info("topic {} now has {} partitions", name, count);
        return ApiError.NONE;
    }

    /** Puts a changed topic in both maps. Under {@code metadataLock}. */
    private void replace(Topic topic) {
        topicsByName.put(topic.name(), topic);
        topicsById.put(topic.id(), topic);
    }

    /**
     * Deletes a topic: it leaves the maps (a name or id lookup misses from now on), its partitions
     * are marked deleted and dropped by the followers, their records are released, and every
     * request parked on them is answered at once (see the class comment).
     *
     * @return the deleted topic, or null when there was none of that name
     */
    public Topic deleteTopic(String name) {
        return delete(() -> topicsByName.get(name));
    }

    /** As {@link #deleteTopic(String)}, the topic named by its id; null when there is none of that id. */
    public Topic deleteTopic(Uuid id) {
        return delete(() -> topicsById.get(id));
    }

    /** Deletes the topic {@code lookup} finds under {@code metadataLock}, if any. */
    private Topic delete(java.util.function.Supplier<Topic> lookup) {
        Topic topic;
        String name;
        synchronized (metadataLock) {
            topic = lookup.get();
            if (topic == null) {
                return null;
            }
            name = topic.name();
            topicsByName.remove(name);
            topicsById.remove(topic.id());
            collisionNames.remove(org.apache.kafka.common.internals.Topic.unifyCollisionChars(name), name);
            partitionCount -= topic.partitions().size();
        }
        followers.removePartitions(topic.partitions());
        for (Partition partition : topic.partitions()) {
            partition.delete();
            recheckParked(partition);
            deleteRecordsPurgatory.checkAndComplete(partition.topicPartition());
        }
        LOG.info("deleted topic {} (id {}): {} partition(s)", name, topic.id(), topic.partitions().size());
        return topic;
    }

    /** Re-checks the produces and fetches parked on a partition whose state changed other than by an advance. */
    private void recheckParked(Partition partition) {
        producePurgatory.checkAndComplete(partition.topicPartition());
        fetchPurgatory.checkAndComplete(partition.topicPartition());
        fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
    }

    /**
     * Sets and removes a topic's configs (values already validated; null removes) and applies
     * them to its partitions; a changed {@code min.insync.replicas} re-checks the produces parked
     * on them at once.
     *
     * @return {@code UNKNOWN_TOPIC_OR_PARTITION} when there is no such topic
     */
    public ApiError alterTopicConfigs(String name, Map<DynamicSetting, String> changes, boolean validateOnly) {
        Topic changed;
        synchronized (metadataLock) {
            Topic topic = topicsByName.get(name);
            if (topic == null) {
                return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + name + "' does not exist.");
            }
            if (validateOnly) {
                return ApiError.NONE;
            }
            Map<DynamicSetting, String> configs = new EnumMap<>(DynamicSetting.class);
            configs.putAll(topic.configs());
            changes.forEach((setting, value) -> {
                if (value == null) {
                    configs.remove(setting);
                } else {
                    configs.put(setting, value);
                }
            });
            changed = new Topic(name, topic.id(), topic.partitions(), configs);
            replace(changed);
            configure(changed);
        }
        LOG.info("topic {} configs now {}", name, named(changed.configs(), DynamicSetting::topicName));
        changed.partitions().forEach(this::recheckParked);
        return ApiError.NONE;
    }

    /**
     * Sets and removes a broker resource's dynamic configs ({@value DynamicConfigs#DEFAULT_BROKER}:
     * the cluster default, else this broker's; values already validated; null removes) and applies
     * them to every topic that does not set them itself, re-checking the produces parked there.
     */
    public void alterBrokerConfigs(String brokerResource, Map<DynamicSetting, String> changes) {
        List<Topic> all;
        synchronized (metadataLock) {
            Map<DynamicSetting, String> overrides = new EnumMap<>(DynamicSetting.class);
            overrides.putAll(dynamicConfigs.overrides(brokerResource));
            changes.forEach((setting, value) -> {
                if (value == null) {
                    overrides.remove(setting);
                } else {
                    overrides.put(setting, value);
                }
            });
            dynamicConfigs.setOverrides(brokerResource, overrides);
            all = List.copyOf(topicsByName.values());
            all.forEach(this::configure);
        }
        LOG.info("broker configs ({}) now {}", brokerResource.isEmpty() ? "cluster default" : "broker " + brokerResource,
                named(dynamicConfigs.overrides(brokerResource), DynamicSetting::brokerName));
        all.forEach(topic -> topic.partitions().forEach(this::recheckParked));
    }

    /** Configs as Kafka names them, for the log. */
    private static Map<String, String> named(Map<DynamicSetting, String> configs, java.util.function.Function<DynamicSetting, String> name) {
        Map<String, String> named = new java.util.TreeMap<>();
        configs.forEach((setting, value) -> named.put(name.apply(setting), value));
        return named;
    }

    /** Applies a topic's effective configs to its partitions. Under {@code metadataLock}. */
    private void configure(Topic topic) {
        LogConfig logConfig = dynamicConfigs.logConfig(topic.configs());
        long replicaLagTimeMaxMs = dynamicConfigs.replicaLagTimeMaxMs();
        topic.partitions().forEach(partition -> partition.configure(logConfig, replicaLagTimeMaxMs));
    }

    /** The metrics of every purgatory the replica manager has. */
    public List<PurgatoryMetrics> purgatoryMetrics() {
        return List.of(producePurgatoryMetrics(), fetchPurgatoryMetrics(), deleteRecordsPurgatoryMetrics());
    }

    public SimulatedFollowers followers() {
        return followers;
    }

    public PurgatoryMetrics producePurgatoryMetrics() {
        return producePurgatory.metrics();
    }

    public PurgatoryMetrics fetchPurgatoryMetrics() {
        return fetchPurgatory.metrics();
    }

    public PurgatoryMetrics deleteRecordsPurgatoryMetrics() {
        return deleteRecordsPurgatory.metrics();
    }

    /**
     * Reads the partitions and calls {@code responder} once with one read per partition, in order:
     * at once when {@code maxWaitMs <= 0}, when there are no partitions, when some partition cannot
     * be read or when {@code minBytes} of committed data are there already; otherwise when a high
     * watermark move brings enough, or at {@code maxWaitMs} with what is there then (the one case
     * it is told the fetch expired). See {@link DelayedFetch} for the two forms a parked fetch
     * watches in.
     */
    void fetchMessages(long maxWaitMs, int minBytes, int maxBytes, List<PartitionFetch> partitions,
                       DelayedFetch.Completion responder) {
        if (maxWaitMs <= 0 || partitions.isEmpty()) {
            responder.complete(DelayedFetch.read(partitions, maxBytes), false);
            return;
        }
        DelayedFetch fetch = new DelayedFetch(maxWaitMs, minBytes, maxBytes, partitions, responder);
        long position = partitions.size() == 1 ? completingHighWatermark(partitions.get(0), minBytes) : -1;
        if (position >= 0) {
            fetchPurgatory.tryCompleteElseWatchPosition(fetch, partitions.get(0).partition().topicPartition(), position);
            return;
        }
        Set<Object> keys = new LinkedHashSet<>();
        for (PartitionFetch partition : partitions) {
            if (partition.partition() != null) {
                keys.add(DelayedFetch.anyProgress(partition.partition().topicPartition()));
            }
        }
        fetchPurgatory.tryCompleteElseWatch(fetch, keys);
    }

    /** The high watermark at which a one-partition fetch has its {@code minBytes}, or -1 when not known yet. */
    private static long completingHighWatermark(PartitionFetch fetch, int minBytes) {
        if (fetch.partition() == null) {
            return -1;
        }
        return fetch.partition().read((log, highWatermark) -> log.inRange(fetch.fetchOffset())
                ? log.highWatermarkForBytes(fetch.fetchOffset(), minBytes, fetch.maxBytes())
                : -1, -1L);
    }

    /** Tells parked fetches that the partition's high watermark moved: both forms. No partition lock may be held. */
    private void fetchesSeeHighWatermark(Partition partition, long highWatermark) {
        fetchPurgatory.advance(partition.topicPartition(), highWatermark);
        fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
    }

    /**
     * Appends each partition's records on the leader and calls {@code responder} once with one
     * result per partition, each with its append's {@link ProduceResult#key() key}: at once for {@code acks} 0 and 1, and for {@code acks=-1}
     * when every ISR replica has the records or {@code timeoutMs} passes, whichever is first.
     * An {@code acks=-1} produce to a partition whose ISR is below the minimum is refused with
     * {@link Errors#NOT_ENOUGH_REPLICAS} and appends nothing there. The records are copied into the
     * partition's log before this returns. While {@link BrokerConfig#maxParkedRequests()} produces
     * are parked, an {@code acks=-1} produce is refused with {@link Errors#THROTTLING_QUOTA_EXCEEDED}
     * and appends nothing (the check and the parking are not atomic: concurrent connections may
     * overshoot the cap by a few).
     *
     * @return the produce it parked (it may have completed already), or {@code null} when none
     *     was needed and {@code responder} has been called
     */
    public DelayedProduce appendRecords(short acks, long timeoutMs, List<PartitionAppend> appends, Consumer<List<ProduceResult>> responder) {
        List<ProduceResult> results = new ArrayList<>(appends.size());
        Map<TopicPartition, Long> requiredEndOffsets = new LinkedHashMap<>();
        Errors refusal = stopped ? Errors.NOT_LEADER_OR_FOLLOWER
                : acks == -1 && producePurgatory.numDelayed() >= maxParkedRequests ? Errors.THROTTLING_QUOTA_EXCEEDED
                : null;
        for (PartitionAppend append : appends) {
            ProduceResult result = refusal != null && append.refused() == null
                    ? ProduceResult.failed(append.key(), refusal)
                    : append(acks, append);
            if (result.waitsFor() != null) {
                requiredEndOffsets.merge(result.waitsFor().topicPartition(), result.endOffset(), Math::max);
            }
            results.add(result);
        }
        if (requiredEndOffsets.isEmpty()) {
            responder.accept(results);
            return null;
        }
        DelayedProduce produce = new DelayedProduce(Math.max(0, timeoutMs), results, responder);
        producePurgatory.tryCompleteElseWatchPositions(produce, requiredEndOffsets);
        if (stopped) { // parked while close() was taking the parked produces out
            produce.cancel(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return produce;
    }

    private ProduceResult append(short acks, PartitionAppend append) {
        if (append.refused() != null) {
            return ProduceResult.failed(append.key(), append.refused());
        }
        if (acks != -1 && acks != 0 && acks != 1) {
            return ProduceResult.failed(append.key(), Errors.INVALID_REQUIRED_ACKS);
        }
        Partition partition = append.partition();
        if (acks == -1 && partition.isrBelowMinimum()) {
            return ProduceResult.failed(append.key(), Errors.NOT_ENOUGH_REPLICAS);
        }
        Partition.AppendResult appended = partition.append(append.records());
        if (appended.error() != Errors.NONE) {
            return ProduceResult.failed(append.key(), appended.error());
        }
        followers.onAppend(partition);
        if (appended.highWatermarkMoved()) {
            fetchesSeeHighWatermark(partition, appended.highWatermark());
        }
        return acks == -1
                ? ProduceResult.awaitingReplication(append.key(), partition, appended.baseOffset(), appended.endOffset())
                : ProduceResult.appended(append.key(), appended.baseOffset());
    }

    /**
     * Deletes records, as Kafka's {@code deleteRecords}: moves each partition's log start offset on
     * the leader at once ({@link Partition#deleteRecordsBefore}), tells the followers, answers the
     * fetches parked below the new log start ({@code OFFSET_OUT_OF_RANGE}), then calls
     * {@code responder} once with one result per partition: at once when no partition waits,
     * otherwise when every in-sync replica's log start offset has reached the requested offset
     * (the low watermark) on each partition, or at {@code timeoutMs} ({@code REQUEST_TIMED_OUT} for
     * those still waiting), whichever is first.
     *
     * @param offsets the partitions and the offsets to delete before ({@link Partition#HIGH_WATERMARK}
     *     for the high watermark); a null partition is answered {@code UNKNOWN_TOPIC_OR_PARTITION}
     * @return the operation it parked (it may have completed already), or null when none was
     *     needed and {@code responder} has been called
     */
    public DelayedDeleteRecords deleteRecords(long timeoutMs, List<DelayedDeleteRecords.Request> offsets,
                                              Consumer<List<DelayedDeleteRecords.Result>> responder) {
        List<DelayedDeleteRecords.Result> results = new ArrayList<>(offsets.size());
        Map<TopicPartition, Long> required = new LinkedHashMap<>();
        for (DelayedDeleteRecords.Request request : offsets) {
            Partition partition = request.partition();
            if (partition == null || stopped) {
                results.add(DelayedDeleteRecords.Result.failed(request, stopped ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION));
                continue;
            }
            Partition.DeleteRecordsResult deleted = partition.deleteRecordsBefore(request.offset());
            if (deleted.error() != Errors.NONE) {
                results.add(DelayedDeleteRecords.Result.failed(request, deleted.error()));
                continue;
            }
            if (deleted.logStartMoved()) {
                followers.onLogStartMoved(partition);
                recheckParked(partition);
            }
            results.add(DelayedDeleteRecords.Result.waiting(request, partition, deleted.requestedOffset(), deleted.lowWatermark()));
            required.merge(partition.topicPartition(), deleted.requestedOffset(), Math::max);
        }
        if (required.isEmpty()) {
            responder.accept(results);
            return null;
        }
        DelayedDeleteRecords operation = new DelayedDeleteRecords(Math.max(0, timeoutMs), results, responder);
        deleteRecordsPurgatory.tryCompleteElseWatchPositions(operation, required);
        if (stopped) { // parked while close() was taking the parked operations out
            operation.cancel(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return operation;
    }

    /** Delete-records requests waiting in the purgatory now. */
    public long parkedDeleteRecords() {
        return deleteRecordsPurgatory.numDelayed();
    }

    /**
     * Stops leading: stops the followers and cancels every parked produce and delete-records with
     * the reason {@link Errors#NOT_LEADER_OR_FOLLOWER} ({@code cancelForKey(partition, reason)}),
     * which answers the partitions still waiting with it (retriable: a Kafka
     * client refreshes its metadata and sends again, as when a leader moves), then closes the
     * purgatories (a parked fetch is answered with what is there). From now on a produce is
     * answered {@code NOT_LEADER_OR_FOLLOWER} and appends nothing.
     */
    @Override
    public void close() {
        stopped = true;
        followers.close();
        for (Topic topic : topicsByName.values()) {
            for (Partition partition : topic.partitions()) {
                producePurgatory.cancelForKey(partition.topicPartition(), Errors.NOT_LEADER_OR_FOLLOWER);
                deleteRecordsPurgatory.cancelForKey(partition.topicPartition(), Errors.NOT_LEADER_OR_FOLLOWER);
            }
        }
        producePurgatory.close();
        fetchPurgatory.close();
        deleteRecordsPurgatory.close();
    }
}
