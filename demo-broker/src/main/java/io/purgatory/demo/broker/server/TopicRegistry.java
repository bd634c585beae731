package io.purgatory.demo.broker.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.DynamicSetting;
import io.purgatory.demo.broker.log.LogConfig;
import io.purgatory.demo.broker.log.LogMemory;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's topics and their configs, as Kafka's controller and metadata cache between them:
 * {@link #createTopic}, {@link #createPartitions}, {@link #deleteTopic} and the config changes
 * ({@link #alterTopicConfigs}, {@link #alterBrokerConfigs}), with lookups by name and by id. New
 * partitions join the {@link SimulatedFollowers} and a deleted topic's leave them. Deleting a topic
 * marks its partitions deleted and then tells the requests parked on them
 * ({@link ParkedRequests#partitionDeleted}); a config change that applies to a partition tells them
 * too ({@link ParkedRequests#partitionChanged}), so that none waits for its timeout. A topic
 * created again under the same name gets a new id and new partitions, from offset 0.
 *
 * <p>Thread-safe. {@code metadataLock} guards every change to the topic maps, the topics'
 * configs, the broker's dynamic configs ({@link DynamicConfigs}), {@code collisionNames} and
 * {@code partitionCount}, so creates, deletes and alters are serialised and see one another whole;
 * the maps are concurrent, so the request paths read them without the lock (a {@link Topic} is
 * immutable and replaced whole). Lock order: {@code metadataLock}, then a partition's lock; the
 * {@link ParkedRequests} are told with no lock held. {@code metadataVersion} is atomic, moved after
 * each change that a Metadata answer shows.
 */
public final class TopicRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(TopicRegistry.class);

    private final BrokerConfig config;
    private final SimulatedFollowers followers;
    private final ParkedRequests parked;
    private final LogMemory logMemory;
    private final DynamicConfigs dynamicConfigs;
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
    /** Moves after every change of what a Metadata answer shows: topics, partitions, ISRs. */
    private final AtomicLong metadataVersion = new AtomicLong();

    /** What parks requests on partitions, told when a partition changes under them; called with no lock held. */
    interface ParkedRequests {
        /** The partition's configs changed (e.g. {@code min.insync.replicas}): re-check what is parked on it. */
        void partitionChanged(Partition partition);

        /** The partition was deleted (it is marked so already): answer what is parked on it. */
        void partitionDeleted(Partition partition);
    }

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

    /** What a create did: the new topic's id ({@link Uuid#ZERO_UUID} when validating only), or why not. */
    public record CreateResult(ApiError error, Uuid topicId) {
        static CreateResult failed(Errors error, String message) {
            return new CreateResult(new ApiError(error, message), Uuid.ZERO_UUID);
        }
    }

    /** The topics {@code config} names, created at once; {@code followers} replicate every partition; logs bounded by no budget. */
    TopicRegistry(BrokerConfig config, SimulatedFollowers followers, ParkedRequests parked) {
        this(config, followers, parked, LogMemory.UNBOUNDED);
    }

    /** As above, every partition's log holding its memory in {@code logMemory} (the broker's budget). */
    TopicRegistry(BrokerConfig config, SimulatedFollowers followers, ParkedRequests parked, LogMemory logMemory) {
        this.config = config;
        this.followers = followers;
        this.parked = parked;
        this.logMemory = logMemory;
        this.dynamicConfigs = new DynamicConfigs(config);
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
    public Collection<Topic> all() {
        return topicsByName.values();
    }

    DynamicConfigs dynamicConfigs() {
        return dynamicConfigs;
    }

    /**
     * A number that moves after every change of what a Metadata answer shows (a topic created or
     * deleted, partitions added, an ISR changed), so that an answer built after reading it is
     * current until it moves ({@link AllTopicsMetadata}).
     */
    long metadataVersion() {
        return metadataVersion.get();
    }

    /** A partition's ISR changed (told once the change is made): Metadata answers built before it are stale. */
    void isrChanged() {
        metadataVersion.incrementAndGet();
    }

    /** Partitions of every topic now. */
    public int partitionCount() {
        synchronized (metadataLock) {
            return partitionCount;
        }
    }

    /** Every partition's offsets and ISR, topics by name; each partition read atomically. */
    public List<PartitionState> partitionStates() {
        List<PartitionState> states = new ArrayList<>();
        for (Topic topic : all()) {
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
            metadataVersion.incrementAndGet();
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
            partitions.add(new Partition(new TopicPartition(name, i), followerCount, logConfig, replicaLagTimeMaxMs, nowMs, logMemory));
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
            metadataVersion.incrementAndGet();
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
     * request parked on them is answered at once (see {@link ReplicaManager}).
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
            metadataVersion.incrementAndGet();
        }
        followers.removePartitions(topic.partitions());
        for (Partition partition : topic.partitions()) {
            partition.delete();
            parked.partitionDeleted(partition);
        }
        LOG.info("deleted topic {} (id {}): {} partition(s)", name, topic.id(), topic.partitions().size());
        return topic;
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
        changed.partitions().forEach(parked::partitionChanged);
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
        all.forEach(topic -> topic.partitions().forEach(parked::partitionChanged));
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
}
