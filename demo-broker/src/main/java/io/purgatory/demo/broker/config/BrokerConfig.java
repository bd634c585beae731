package io.purgatory.demo.broker.config;

import static io.purgatory.demo.broker.config.BrokerSettings.AUTO_CREATE_TOPICS;
import static io.purgatory.demo.broker.config.BrokerSettings.GROUP_INITIAL_REBALANCE_DELAY_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.GROUP_MAX_SESSION_TIMEOUT_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.GROUP_MAX_SIZE;
import static io.purgatory.demo.broker.config.BrokerSettings.GROUP_MIN_SESSION_TIMEOUT_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.HEALTHY_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.IDLE_TIMEOUT_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_CONNECTIONS;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_FRAME_BYTES;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_GROUPS;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_GROUPS_PER_ADDRESS;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_GROUPS_PER_CLIENT;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_IN_FLIGHT_PER_CONNECTION;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_MESSAGE_BYTES;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_PARKED_REQUESTS;
import static io.purgatory.demo.broker.config.BrokerSettings.MEMORY_BUDGET_BYTES;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_PARTITIONS;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_PARTITIONS_PER_REQUEST;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_RESPONSE_BYTES;
import static io.purgatory.demo.broker.config.BrokerSettings.MAX_TOPICS_PER_REQUEST;
import static io.purgatory.demo.broker.config.BrokerSettings.MIN_INSYNC_REPLICAS;
import static io.purgatory.demo.broker.config.BrokerSettings.NUM_PARTITIONS;
import static io.purgatory.demo.broker.config.BrokerSettings.OFFSETS_RETENTION_CHECK_INTERVAL_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.OFFSETS_RETENTION_MINUTES;
import static io.purgatory.demo.broker.config.BrokerSettings.PORT;
import static io.purgatory.demo.broker.config.BrokerSettings.REPLICAS;
import static io.purgatory.demo.broker.config.BrokerSettings.REPLICA_LAG_JITTER_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.REPLICA_LAG_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.REPLICA_LAG_TIME_MAX_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.REQUEST_HANDLERS;
import static io.purgatory.demo.broker.config.BrokerSettings.RETENTION_BYTES;
import static io.purgatory.demo.broker.config.BrokerSettings.STALL_AFTER_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.STALL_MS;
import static io.purgatory.demo.broker.config.BrokerSettings.STALL_REPLICAS;
import static io.purgatory.demo.broker.config.BrokerSettings.TOPICS;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The values of the demo broker's settings, each setting defined once in {@link BrokerSettings}
 * (name, type, default, range, documentation, static or dynamic): {@link #fromCommandLine} reads
 * them from {@code demo-broker}'s parsed options, {@link #builder()} starts from the same defaults,
 * and {@link #validate()} checks each range and what involves several settings. Read any setting
 * with {@link #get}; the named accessors are shorthands for the ones the broker reads most.
 *
 * <p>Immutable once built: the values are copied in and never change; the broker's start
 * publishes the config to the threads that read it.
 */
public final class BrokerConfig {
    /** The value of a setting with no default that was not given (a map holds no null). */
    private static final Object NONE = new Object();
    /** The smallest memory budget accepted: 1 MiB. */
    private static final long MIN_MEMORY_BUDGET_BYTES = 1L << 20;

    private final Map<Setting<?>, Object> values;

    private BrokerConfig(Map<Setting<?>, Object> values) {
        this.values = Map.copyOf(values);
    }

    /** A builder starting from the command line's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The settings' values in a command line {@link BrokerSettings#addTo} set up and picocli parsed, not yet validated. */
    public static BrokerConfig fromCommandLine(CommandSpec command) {
        Map<Setting<?>, Object> values = new HashMap<>();
        for (Setting<?> setting : BrokerSettings.ALL) {
            Object value = command.findOption(setting.option()).getValue();
            values.put(setting, value != null ? value : setting.isRepeatable() ? List.of() : NONE);
        }
        return new BrokerConfig(values);
    }

    /** Every setting at its default, as the command line gives them. */
    private static Map<Setting<?>, Object> defaults() {
        CommandSpec command = CommandSpec.create();
        BrokerSettings.addTo(command);
        new CommandLine(command).parseArgs();
        return new HashMap<>(fromCommandLine(command).values);
    }

    /** The value of {@code setting}: an empty list for a repeatable option not given, null for a file not given. */
    @SuppressWarnings("unchecked")
    public <T> T get(Setting<T> setting) {
        Object value = values.get(setting);
        return value == NONE ? null : (T) value;
    }

    /**
     * Checks every setting alone (its range) and together.
     *
     * @return this
     * @throws IllegalArgumentException naming the option(s) and value(s) at fault, as the command line spells them
     */
    public BrokerConfig validate() {
        for (Setting<?> setting : BrokerSettings.ALL) {
            setting.check(get(setting));
        }
        Set<String> names = new HashSet<>();
        long partitions = 0;
        for (TopicSpec topic : get(TOPICS)) {
            String name = topic.name();
            checkTopicName(name);
            require(topic.partitions() > 0, "--topic " + name + " needs at least one partition, was " + topic.partitions());
            require(names.add(name), "--topic " + name + " is given twice");
            partitions += topic.partitions();
        }
        long replicaLagMs = replicaLagMs();
        long replicaLagJitterMs = replicaLagJitterMs();
        int followers = followers();
        require(replicaLagJitterMs <= replicaLagMs, "--replica-lag-jitter-ms " + replicaLagJitterMs + " must not exceed --replica-lag-ms "
                + replicaLagMs + ": a follower's lag is uniform in [lag - jitter, lag + jitter]");
        get(STALL_REPLICAS).forEach(id -> require(id >= 1 && id <= followers,
                "--stall-replica " + id + " names no follower: with --replicas " + followers + " they are 1.." + followers));
        require(stallMs() == 0 || healthyMs() > 0, "--healthy-ms must be > 0 with --stall-ms, was " + healthyMs());
        require(stallAfterMs() == 0 || stallMs() == 0,
                "--stall-after-ms is for a stall that lasts: with --stall-ms, --healthy-ms is the time before the first stall");
        require(groupMinSessionTimeoutMs() <= groupMaxSessionTimeoutMs(), "--group-min-session-timeout-ms " + groupMinSessionTimeoutMs()
                + " must not exceed --group-max-session-timeout-ms " + groupMaxSessionTimeoutMs());
        require(minInsyncReplicas() <= followers + 1, "--replicas " + followers + " leaves " + (followers + 1)
                + " replica(s) with the leader, fewer than --min-insync-replicas " + minInsyncReplicas()
                + ": lower --min-insync-replicas or raise --replicas");
        require(partitions <= maxPartitions(), "--max-partitions " + maxPartitions() + " is below the " + partitions
                + " partitions of the --topic options");
        require(memoryBudgetBytes() == -1 || memoryBudgetBytes() >= MIN_MEMORY_BUDGET_BYTES, "--memory-budget-bytes must be -1 (half of"
                + " the maximum heap) or at least " + MIN_MEMORY_BUDGET_BYTES + ", was " + memoryBudgetBytes());
        return this;
    }

    /**
     * Checks a topic name by Kafka's own rule ({@link Topic#validate}): the one check of a topic
     * name the broker makes, for {@code --topic} as for the admin requests.
     *
     * @throws IllegalArgumentException with Kafka's reason
     */
    public static void checkTopicName(String name) {
        try {
            Topic.validate(name);
        } catch (InvalidTopicException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** TCP port to listen on; 0 picks a free one. */
    public int port() {
        return get(PORT);
    }

    /** Topic name to partition count, in the order given. */
    public Map<String, Integer> topics() {
        Map<String, Integer> map = new LinkedHashMap<>();
        get(TOPICS).forEach(topic -> map.put(topic.name(), topic.partitions()));
        return Collections.unmodifiableMap(map);
    }

    /** Simulated follower replicas per partition (replica ids 1..followers). */
    public int followers() {
        return get(REPLICAS);
    }

    /** Mean delay between a leader append and a follower fetching it. */
    public long replicaLagMs() {
        return get(REPLICA_LAG_MS);
    }

    /** The lag is uniform in {@code [mean - jitter, mean + jitter]}. */
    public long replicaLagJitterMs() {
        return get(REPLICA_LAG_JITTER_MS);
    }

    /** Follower ids that stall, in order. */
    public Set<Integer> stalledReplicas() {
        return Collections.unmodifiableSet(new TreeSet<>(get(STALL_REPLICAS)));
    }

    /** How long each stall lasts; 0 means the stalled replicas never resume. */
    public long stallMs() {
        return get(STALL_MS);
    }

    /** With {@code stallMs > 0}: time before the first stall and between stalls. */
    public long healthyMs() {
        return get(HEALTHY_MS);
    }

    /** With {@code stallMs == 0}: time before the stalled replicas stall for good. */
    public long stallAfterMs() {
        return get(STALL_AFTER_MS);
    }

    /** A follower not caught up for longer than this leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return get(REPLICA_LAG_TIME_MAX_MS);
    }

    /** acks=-1 needs at least this many ISR replicas, leader included. */
    public int minInsyncReplicas() {
        return get(MIN_INSYNC_REPLICAS);
    }

    /** Largest request frame accepted; a larger one closes the connection. */
    public int maxFrameBytes() {
        return get(MAX_FRAME_BYTES);
    }

    /** Requests a connection may have awaiting responses before the broker stops reading from it. */
    public int maxInFlightPerConnection() {
        return get(MAX_IN_FLIGHT_PER_CONNECTION);
    }

    /** Largest response the broker builds; see the option. */
    public int maxResponseBytes() {
        return get(MAX_RESPONSE_BYTES);
    }

    /** Threads that parse and handle requests (num.io.threads). */
    public int requestHandlers() {
        return get(REQUEST_HANDLERS);
    }

    /** Bytes of record batches each partition's log keeps; the oldest beyond it are dropped (the newest always stays). */
    public long retentionBytes() {
        return get(RETENTION_BYTES);
    }

    /** acks=-1 produces the purgatory may hold in total; past it one is answered at once with THROTTLING_QUOTA_EXCEEDED. */
    public int maxParkedRequests() {
        return get(MAX_PARKED_REQUESTS);
    }

    /** The memory budget for what clients make the broker hold, in bytes; -1: half of the maximum heap. */
    public long memoryBudgetBytes() {
        return get(MEMORY_BUDGET_BYTES);
    }

    /** Open client connections; past it a new one is accepted and closed at once. */
    public int maxConnections() {
        return get(MAX_CONNECTIONS);
    }

    /** A connection with no request in flight that reads nothing for this long is closed (connections.max.idle.ms). */
    public long idleTimeoutMs() {
        return get(IDLE_TIMEOUT_MS);
    }

    /** The shortest session timeout a member may ask for (group.min.session.timeout.ms). */
    public int groupMinSessionTimeoutMs() {
        return get(GROUP_MIN_SESSION_TIMEOUT_MS);
    }

    /** The longest session timeout a member may ask for (group.max.session.timeout.ms). */
    public int groupMaxSessionTimeoutMs() {
        return get(GROUP_MAX_SESSION_TIMEOUT_MS);
    }

    /** How long an empty group's first rebalance waits for more members (group.initial.rebalance.delay.ms). */
    public int groupInitialRebalanceDelayMs() {
        return get(GROUP_INITIAL_REBALANCE_DELAY_MS);
    }

    /** Members (pending ones included) a group may have (group.max.size). */
    public int groupMaxSize() {
        return get(GROUP_MAX_SIZE);
    }

    /** Groups the coordinator holds at most. */
    public int maxGroups() {
        return get(MAX_GROUPS);
    }

    /** Groups one client id may have created that are still held. */
    public int maxGroupsPerClient() {
        return get(MAX_GROUPS_PER_CLIENT);
    }

    /** Groups the clients at one address may have created that are still held, whatever client ids they claim. */
    public int maxGroupsPerAddress() {
        return get(MAX_GROUPS_PER_ADDRESS);
    }

    /** How long an empty group keeps its offsets (offsets.retention.minutes). */
    public int offsetsRetentionMinutes() {
        return get(OFFSETS_RETENTION_MINUTES);
    }

    /** How often expired offsets are looked for (offsets.retention.check.interval.ms). */
    public long offsetsRetentionCheckIntervalMs() {
        return get(OFFSETS_RETENTION_CHECK_INTERVAL_MS);
    }

    /** The largest record batch a produce may append (message.max.bytes), unless a topic sets max.message.bytes. */
    public int maxMessageBytes() {
        return get(MAX_MESSAGE_BYTES);
    }

    /** Partitions of a topic created without a count (num.partitions). */
    public int numPartitions() {
        return get(NUM_PARTITIONS);
    }

    /** Whether a metadata request that allows it creates the unknown topics it names (auto.create.topics.enable). */
    public boolean autoCreateTopics() {
        return get(AUTO_CREATE_TOPICS);
    }

    /** Partitions the broker may hold in all. */
    public int maxPartitions() {
        return get(MAX_PARTITIONS);
    }

    /** Partitions one CreateTopics or CreatePartitions request may add. */
    public int maxPartitionsPerRequest() {
        return get(MAX_PARTITIONS_PER_REQUEST);
    }

    /** Topics one CreateTopics, CreatePartitions or DeleteTopics request may name. */
    public int maxTopicsPerRequest() {
        return get(MAX_TOPICS_PER_REQUEST);
    }

    /**
     * Builds a {@link BrokerConfig} from the command line's defaults; each method sets what the
     * option of the same name does. Not thread-safe, and used once: {@link #build()} hands over the
     * config it filled.
     */
    public static final class Builder {
        private Map<Setting<?>, Object> values = defaults();
        private boolean topicAdded;

        private Builder() {
        }

        /** Sets any setting of the table; the named methods below are shorthands for the tests' common ones. */
        public <T> Builder set(Setting<T> setting, T value) {
            if (values == null) {
                throw new IllegalStateException("build() was called: a builder makes one config");
            }
            values.put(setting, value != null ? value : NONE);
            return this;
        }

        public Builder port(int port) {
            return set(PORT, port);
        }

        /** Adds a topic; the first one replaces the default topic. */
        public Builder topic(String name, int partitions) {
            List<TopicSpec> topics = new ArrayList<>(topicAdded ? get(TOPICS) : List.of());
            topicAdded = true;
            topics.add(new TopicSpec(name, partitions));
            return set(TOPICS, topics);
        }

        public Builder followers(int followers) {
            return set(REPLICAS, followers);
        }

        public Builder replicaLag(long meanMs, long jitterMs) {
            set(REPLICA_LAG_MS, meanMs);
            return set(REPLICA_LAG_JITTER_MS, jitterMs);
        }

        public Builder stallReplica(int replicaId) {
            List<Integer> stalled = new ArrayList<>(get(STALL_REPLICAS));
            stalled.add(replicaId);
            return set(STALL_REPLICAS, stalled);
        }

        /** Stalled replicas stall for {@code stallMs} after every {@code healthyMs} of fetching. */
        public Builder stallCycle(long stallMs, long healthyMs) {
            set(STALL_MS, stallMs);
            return set(HEALTHY_MS, healthyMs);
        }

        /** The stalled replicas fetch for {@code stallAfterMs}, then stall for good (no stall cycle). */
        public Builder stallAfterMs(long stallAfterMs) {
            return set(STALL_AFTER_MS, stallAfterMs);
        }

        public Builder replicaLagTimeMaxMs(long replicaLagTimeMaxMs) {
            return set(REPLICA_LAG_TIME_MAX_MS, replicaLagTimeMaxMs);
        }

        public Builder minInsyncReplicas(int minInsyncReplicas) {
            return set(MIN_INSYNC_REPLICAS, minInsyncReplicas);
        }

        public Builder maxFrameBytes(int maxFrameBytes) {
            return set(MAX_FRAME_BYTES, maxFrameBytes);
        }

        public Builder maxInFlightPerConnection(int maxInFlightPerConnection) {
            return set(MAX_IN_FLIGHT_PER_CONNECTION, maxInFlightPerConnection);
        }

        public Builder maxResponseBytes(int maxResponseBytes) {
            return set(MAX_RESPONSE_BYTES, maxResponseBytes);
        }

        public Builder requestHandlers(int requestHandlers) {
            return set(REQUEST_HANDLERS, requestHandlers);
        }

        public Builder retentionBytes(long retentionBytes) {
            return set(RETENTION_BYTES, retentionBytes);
        }

        public Builder maxParkedRequests(int maxParkedRequests) {
            return set(MAX_PARKED_REQUESTS, maxParkedRequests);
        }

        public Builder memoryBudgetBytes(long memoryBudgetBytes) {
            return set(MEMORY_BUDGET_BYTES, memoryBudgetBytes);
        }

        public Builder maxConnections(int maxConnections) {
            return set(MAX_CONNECTIONS, maxConnections);
        }

        public Builder idleTimeoutMs(long idleTimeoutMs) {
            return set(IDLE_TIMEOUT_MS, idleTimeoutMs);
        }

        public Builder groupSessionTimeoutMs(int minMs, int maxMs) {
            set(GROUP_MIN_SESSION_TIMEOUT_MS, minMs);
            return set(GROUP_MAX_SESSION_TIMEOUT_MS, maxMs);
        }

        public Builder groupInitialRebalanceDelayMs(int delayMs) {
            return set(GROUP_INITIAL_REBALANCE_DELAY_MS, delayMs);
        }

        public Builder groupMaxSize(int maxSize) {
            return set(GROUP_MAX_SIZE, maxSize);
        }

        public Builder maxGroups(int maxGroups) {
            return set(MAX_GROUPS, maxGroups);
        }

        public Builder maxGroupsPerClient(int maxGroupsPerClient) {
            return set(MAX_GROUPS_PER_CLIENT, maxGroupsPerClient);
        }

        public Builder maxGroupsPerAddress(int maxGroupsPerAddress) {
            return set(MAX_GROUPS_PER_ADDRESS, maxGroupsPerAddress);
        }

        public Builder offsetsRetention(int minutes, long checkIntervalMs) {
            set(OFFSETS_RETENTION_MINUTES, minutes);
            return set(OFFSETS_RETENTION_CHECK_INTERVAL_MS, checkIntervalMs);
        }

        public Builder autoCreateTopics(boolean autoCreateTopics) {
            return set(AUTO_CREATE_TOPICS, autoCreateTopics);
        }

        public Builder maxPartitions(int maxPartitions) {
            return set(MAX_PARTITIONS, maxPartitions);
        }

        /**
         * The config, {@linkplain BrokerConfig#validate() validated}.
         *
         * @throws IllegalArgumentException naming the setting(s) at fault
         */
        public BrokerConfig build() {
            BrokerConfig built = new BrokerConfig(values).validate();
            values = null;
            return built;
        }

        @SuppressWarnings("unchecked")
        private <T> T get(Setting<T> setting) {
            return (T) values.get(setting);
        }
    }
}
