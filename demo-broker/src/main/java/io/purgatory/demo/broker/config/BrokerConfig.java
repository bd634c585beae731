package io.purgatory.demo.broker.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What the demo broker serves and how its simulated followers behave: every broker setting is
 * defined once, here, by its field. The field's {@link Option} gives the option's name, default and
 * help text, its {@link Range} the values it accepts; {@code demo-broker} mixes this class into its
 * command line, {@link #builder()} starts from the same defaults, {@link #validate()} checks both, and
 * a test ({@code BrokerMainTest.docsDemoMdTablesEveryOptionWithItsDefault}) checks docs/demo.md's
 * option table against the command line: the same options with the same defaults.
 *
 * <p>To add a setting: a field with {@code @Option(names = "--name", paramLabel = ..., defaultValue = ...,
 * description = "... Default: ${DEFAULT-VALUE}.")} and, if numeric, {@code @Range}; an accessor; a
 * builder method if tests need another value; a check in {@link #validate()} only for what involves
 * other settings; and its row in docs/demo.md's table under "## demo-broker".
 *
 * <p>Effectively immutable: picocli (for {@code demo-broker}) or a {@link Builder} fills the fields,
 * and neither changes them once the config is validated and handed to the broker, whose start
 * publishes it to the threads that read it. Not for use before {@link #validate()} passed.
 */
public final class BrokerConfig {
    /** Kafka's legal topic names ({@code org.apache.kafka.common.internals.Topic}), "." and ".." aside. */
    private static final Pattern LEGAL_TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "9092",
            description = "TCP port to listen on; 0 picks a free port (logged, and written to --port-file). Default: ${DEFAULT-VALUE}.")
    @Range(min = 0, max = 65_535)
    private int port;

    @Option(names = "--topic", paramLabel = "NAME:PARTITIONS", converter = TopicSpec.Converter.class, defaultValue = "demo:3",
            description = "A topic to serve, with its partition count (NAME alone: " + TopicSpec.DEFAULT_PARTITIONS
                    + " partition); repeatable. Names as Kafka's: 1 to 249 of a-z A-Z 0-9 . _ -. Default: ${DEFAULT-VALUE}.")
    private List<TopicSpec> topics = new ArrayList<>();

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "2",
            description = "Simulated follower replicas per partition, ids 1..N (the leader is replica 0). Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private int followers;

    @Option(names = "--replica-lag-ms", paramLabel = "MS", defaultValue = "5",
            description = "Mean delay before a follower fetches an append. Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private long replicaLagMs;

    @Option(names = "--replica-lag-jitter-ms", paramLabel = "MS", defaultValue = "2",
            description = "Each fetch lag is uniform in [mean - jitter, mean + jitter]; at most the mean. Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private long replicaLagJitterMs;

    @Option(names = "--stall-replica", paramLabel = "ID",
            description = "Follower that stalls (fetches nothing), on every partition; repeatable.")
    private List<Integer> stalledReplicas = new ArrayList<>();

    @Option(names = "--stall-ms", paramLabel = "MS", defaultValue = "0",
            description = "How long each stall lasts; 0 = the stalled replicas never resume. Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private long stallMs;

    @Option(names = "--healthy-ms", paramLabel = "MS", defaultValue = "3000",
            description = "With --stall-ms: fetching time before the first stall and between stalls. Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private long healthyMs;

    @Option(names = "--stall-after-ms", paramLabel = "MS", defaultValue = "0",
            description = "Without --stall-ms: the stalled replicas fetch for MS, then stall for good (start a client first,"
                    + " then watch its produces park). Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private long stallAfterMs;

    @Option(names = "--replica-lag-time-max-ms", paramLabel = "MS", defaultValue = "30000",
            description = "A follower not caught up for this long leaves the ISR (Kafka's replica.lag.time.max.ms)."
                    + " Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private long replicaLagTimeMaxMs;

    @Option(names = "--min-insync-replicas", paramLabel = "N", defaultValue = "2",
            description = "acks=-1 needs this many in-sync replicas, leader included (min.insync.replicas);"
                    + " below it, produces get NOT_ENOUGH_REPLICAS. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int minInsyncReplicas;

    @Option(names = "--max-frame-bytes", paramLabel = "BYTES", defaultValue = "16777216",
            description = "Largest request accepted; a bigger or negative length prefix closes that connection."
                    + " Default: ${DEFAULT-VALUE}.")
    @Range(min = 1024)
    private int maxFrameBytes;

    @Option(names = "--max-in-flight-per-connection", paramLabel = "N", defaultValue = "1024",
            description = "A connection with N requests awaiting responses is not read from until one is answered"
                    + " (Kafka reads one at a time). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxInFlightPerConnection;

    @Option(names = "--max-response-bytes", paramLabel = "BYTES", defaultValue = "104857600",
            description = "Largest response: a DescribeGroups or OffsetFetch answers the groups that do not fit with"
                    + " POLICY_VIOLATION, checked before they are built; any other response past it closes its connection"
                    + " (Kafka's socket.request.max.bytes bounds requests alike). Default: ${DEFAULT-VALUE}.")
    @Range(min = 65_536)
    private int maxResponseBytes;

    @Option(names = "--request-handlers", paramLabel = "N", defaultValue = "4",
            description = "Threads that parse and handle requests, off the network threads (Kafka's num.io.threads, 8 there),"
                    + " smaller requests first, one thread kept for requests of at most 16 KiB; 4 suits 2 cores: a slow request"
                    + " holds one of them, never the other connections. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1, max = 256)
    private int requestHandlers;

    @Option(names = "--retention-bytes", paramLabel = "BYTES", defaultValue = "67108864",
            description = "Bytes of record batches each partition keeps in memory; the oldest are dropped beyond it"
                    + " (the newest always stays; the log start offset moves, and fetching below it gets OFFSET_OUT_OF_RANGE)."
                    + " Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private long retentionBytes;

    @Option(names = "--max-parked-requests", paramLabel = "N", defaultValue = "100000",
            description = "acks=-1 produces waiting for replicas, all connections together; past N one is answered at once"
                    + " with THROTTLING_QUOTA_EXCEEDED (retriable) and nothing is appended. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxParkedRequests;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "1000",
            description = "Open client connections; past N a new one is accepted and closed at once (logged at most once"
                    + " every 10 s). Keep it below the open file limit (ulimit -n). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxConnections;

    @Option(names = "--idle-timeout-ms", paramLabel = "MS", defaultValue = "600000",
            description = "A connection with no request in flight that sends nothing for MS is closed (Kafka's"
                    + " connections.max.idle.ms). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private long idleTimeoutMs;

    @Option(names = "--group-min-session-timeout-ms", paramLabel = "MS", defaultValue = "6000",
            description = "A JoinGroup with a shorter session timeout gets INVALID_SESSION_TIMEOUT (Kafka's"
                    + " group.min.session.timeout.ms). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int groupMinSessionTimeoutMs;

    @Option(names = "--group-max-session-timeout-ms", paramLabel = "MS", defaultValue = "1800000",
            description = "A JoinGroup with a longer session timeout gets INVALID_SESSION_TIMEOUT (Kafka's"
                    + " group.max.session.timeout.ms). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int groupMaxSessionTimeoutMs;

    @Option(names = "--group-initial-rebalance-delay-ms", paramLabel = "MS", defaultValue = "3000",
            description = "How long the first rebalance of an empty group waits for more members, again for each"
                    + " new one within the rebalance timeout (Kafka's group.initial.rebalance.delay.ms). Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private int groupInitialRebalanceDelayMs;

    @Option(names = "--group-max-size", paramLabel = "N", defaultValue = "1000",
            description = "Members a group may have, those asked for a member id included; past N a JoinGroup gets"
                    + " GROUP_MAX_SIZE_REACHED (Kafka's group.max.size). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int groupMaxSize;

    @Option(names = "--max-groups", paramLabel = "N", defaultValue = "10000",
            description = "Groups the coordinator holds (each keeps its committed offsets while it has any); past N a"
                    + " request that would create one gets COORDINATOR_NOT_AVAILABLE. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxGroups;

    @Option(names = "--max-groups-per-client", paramLabel = "N", defaultValue = "1000",
            description = "Groups one client id may have created that are still held; past N a request of that client id that"
                    + " would create one gets COORDINATOR_NOT_AVAILABLE, so one client cannot fill --max-groups."
                    + " Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxGroupsPerClient;

    @Option(names = "--offsets-retention-minutes", paramLabel = "MIN", defaultValue = "10080",
            description = "An empty group keeps its committed offsets this long after it became empty (a group that never had"
                    + " members: each offset this long after its commit); then they go, and the group with them (Kafka's"
                    + " offsets.retention.minutes). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int offsetsRetentionMinutes;

    @Option(names = "--offsets-retention-check-interval-ms", paramLabel = "MS", defaultValue = "600000",
            description = "How often expired offsets are looked for (Kafka's offsets.retention.check.interval.ms). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private long offsetsRetentionCheckIntervalMs;

    @Option(names = "--max-message-bytes", paramLabel = "BYTES", defaultValue = "1048588",
            description = "The largest record batch a produce may append (Kafka's message.max.bytes; a topic's max.message.bytes"
                    + " overrides it, and kafka-configs changes either while the broker runs); a larger one gets MESSAGE_TOO_LARGE."
                    + " Default: ${DEFAULT-VALUE}.")
    @Range(min = 0)
    private int maxMessageBytes;

    @Option(names = "--num-partitions", paramLabel = "N", defaultValue = "1",
            description = "Partitions of a topic created without a count (kafka-topics --create without --partitions, and"
                    + " auto-created topics; Kafka's num.partitions). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int numPartitions;

    @Option(names = "--auto-create-topics", defaultValue = "false",
            description = "Create a topic when a client's metadata request names it and allows it (Kafka's"
                    + " auto.create.topics.enable). Off by default: create topics with kafka-topics --create. Default: ${DEFAULT-VALUE}.")
    private boolean autoCreateTopics;

    @Option(names = "--max-partitions", paramLabel = "N", defaultValue = "10000",
            description = "Partitions the broker holds in all topics together; a create past it gets POLICY_VIOLATION, and a fetch"
                    + " naming more partitions INVALID_REQUEST. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxPartitions;

    @Option(names = "--max-partitions-per-request", paramLabel = "N", defaultValue = "10000",
            description = "Partitions one CreateTopics or CreatePartitions request may add; more gets POLICY_VIOLATION"
                    + " (\"Excessively large number of partitions per request.\", as from Kafka's controller). Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxPartitionsPerRequest;

    @Option(names = "--max-topics-per-request", paramLabel = "N", defaultValue = "1000",
            description = "Topics one CreateTopics, CreatePartitions or DeleteTopics request may name, and a metadata request may"
                    + " auto-create; more gets POLICY_VIOLATION. Default: ${DEFAULT-VALUE}.")
    @Range(min = 1)
    private int maxTopicsPerRequest;

    /** For picocli, which fills the fields; others start from {@link #builder()}. */
    private BrokerConfig() {
    }

    /** A builder starting from the command line's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Checks every setting alone ({@link Range}) and together.
     *
     * @return this
     * @throws IllegalArgumentException naming the option(s) and value(s) at fault, as the command line spells them
     */
    public BrokerConfig validate() {
        Range.Checks.check(this);
        Set<String> names = new HashSet<>();
        for (TopicSpec topic : topics) {
            String name = topic.name();
            require(LEGAL_TOPIC_NAME.matcher(name).matches() && !name.equals(".") && !name.equals(".."),
                    "topic name '" + name + "' is not valid: use 1 to 249 of a-z A-Z 0-9 . _ - (Kafka's rule)");
            require(topic.partitions() > 0, "--topic " + name + " needs at least one partition, was " + topic.partitions());
            require(names.add(name), "--topic " + name + " is given twice");
        }
        require(replicaLagJitterMs <= replicaLagMs, "--replica-lag-jitter-ms " + replicaLagJitterMs + " must not exceed --replica-lag-ms "
                + replicaLagMs + ": a follower's lag is uniform in [lag - jitter, lag + jitter]");
        stalledReplicas.forEach(id -> require(id >= 1 && id <= followers,
                "--stall-replica " + id + " names no follower: with --replicas " + followers + " they are 1.." + followers));
        require(stallMs == 0 || healthyMs > 0, "--healthy-ms must be > 0 with --stall-ms, was " + healthyMs);
        require(stallAfterMs == 0 || stallMs == 0,
                "--stall-after-ms is for a stall that lasts: with --stall-ms, --healthy-ms is the time before the first stall");
        require(groupMinSessionTimeoutMs <= groupMaxSessionTimeoutMs, "--group-min-session-timeout-ms " + groupMinSessionTimeoutMs
                + " must not exceed --group-max-session-timeout-ms " + groupMaxSessionTimeoutMs);
        require(minInsyncReplicas <= followers + 1, "--replicas " + followers + " leaves " + (followers + 1)
                + " replica(s) with the leader, fewer than --min-insync-replicas " + minInsyncReplicas
                + ": lower --min-insync-replicas or raise --replicas");
        int configured = topics.stream().mapToInt(TopicSpec::partitions).sum();
        require(configured <= maxPartitions, "--max-partitions " + maxPartitions + " is below the " + configured + " partitions of the --topic options");
        return this;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** TCP port to listen on; 0 picks a free one. */
    public int port() {
        return port;
    }

    /** Topic name to partition count, in the order given. */
    public Map<String, Integer> topics() {
        Map<String, Integer> map = new LinkedHashMap<>();
        topics.forEach(topic -> map.put(topic.name(), topic.partitions()));
        return Collections.unmodifiableMap(map);
    }

    /** Simulated follower replicas per partition (replica ids 1..followers). */
    public int followers() {
        return followers;
    }

    /** Mean delay between a leader append and a follower fetching it. */
    public long replicaLagMs() {
        return replicaLagMs;
    }

    /** The lag is uniform in {@code [mean - jitter, mean + jitter]}. */
    public long replicaLagJitterMs() {
        return replicaLagJitterMs;
    }

    /** Follower ids that stall, in order. */
    public Set<Integer> stalledReplicas() {
        return Collections.unmodifiableSet(new TreeSet<>(stalledReplicas));
    }

    /** How long each stall lasts; 0 means the stalled replicas never resume. */
    public long stallMs() {
        return stallMs;
    }

    /** With {@code stallMs > 0}: time before the first stall and between stalls. */
    public long healthyMs() {
        return healthyMs;
    }

    /** With {@code stallMs == 0}: time before the stalled replicas stall for good. */
    public long stallAfterMs() {
        return stallAfterMs;
    }

    /** A follower not caught up for longer than this leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    /** acks=-1 needs at least this many ISR replicas, leader included. */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** Largest request frame accepted; a larger one closes the connection. */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** Requests a connection may have awaiting responses before the broker stops reading from it. */
    public int maxInFlightPerConnection() {
        return maxInFlightPerConnection;
    }

    /** Largest response the broker builds; see the option. */
    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /** Threads that parse and handle requests (num.io.threads). */
    public int requestHandlers() {
        return requestHandlers;
    }

    /** Bytes of record batches each partition's log keeps; the oldest beyond it are dropped (the newest always stays). */
    public long retentionBytes() {
        return retentionBytes;
    }

    /** acks=-1 produces the purgatory may hold in total; past it one is answered at once with THROTTLING_QUOTA_EXCEEDED. */
    public int maxParkedRequests() {
        return maxParkedRequests;
    }

    /** Open client connections; past it a new one is accepted and closed at once. */
    public int maxConnections() {
        return maxConnections;
    }

    /** A connection with no request in flight that reads nothing for this long is closed (connections.max.idle.ms). */
    public long idleTimeoutMs() {
        return idleTimeoutMs;
    }

    /** The shortest session timeout a member may ask for (group.min.session.timeout.ms). */
    public int groupMinSessionTimeoutMs() {
        return groupMinSessionTimeoutMs;
    }

    /** The longest session timeout a member may ask for (group.max.session.timeout.ms). */
    public int groupMaxSessionTimeoutMs() {
        return groupMaxSessionTimeoutMs;
    }

    /** How long an empty group's first rebalance waits for more members (group.initial.rebalance.delay.ms). */
    public int groupInitialRebalanceDelayMs() {
        return groupInitialRebalanceDelayMs;
    }

    /** Members (pending ones included) a group may have (group.max.size). */
    public int groupMaxSize() {
        return groupMaxSize;
    }

    /** Groups the coordinator holds at most. */
    public int maxGroups() {
        return maxGroups;
    }

    /** Groups one client id may have created that are still held. */
    public int maxGroupsPerClient() {
        return maxGroupsPerClient;
    }

    /** How long an empty group keeps its offsets (offsets.retention.minutes). */
    public int offsetsRetentionMinutes() {
        return offsetsRetentionMinutes;
    }

    /** How often expired offsets are looked for (offsets.retention.check.interval.ms). */
    public long offsetsRetentionCheckIntervalMs() {
        return offsetsRetentionCheckIntervalMs;
    }

    /** The largest record batch a produce may append (message.max.bytes), unless a topic sets max.message.bytes. */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** Partitions of a topic created without a count (num.partitions). */
    public int numPartitions() {
        return numPartitions;
    }

    /** Whether a metadata request that allows it creates the unknown topics it names (auto.create.topics.enable). */
    public boolean autoCreateTopics() {
        return autoCreateTopics;
    }

    /** Partitions the broker may hold in all. */
    public int maxPartitions() {
        return maxPartitions;
    }

    /** Partitions one CreateTopics or CreatePartitions request may add. */
    public int maxPartitionsPerRequest() {
        return maxPartitionsPerRequest;
    }

    /** Topics one CreateTopics, CreatePartitions or DeleteTopics request may name. */
    public int maxTopicsPerRequest() {
        return maxTopicsPerRequest;
    }

    /**
     * Builds a {@link BrokerConfig} from the command line's defaults; each method sets what the
     * option of the same name does. Not thread-safe, and used once: {@link #build()} hands over the
     * config it filled.
     */
    public static final class Builder {
        private BrokerConfig config = new BrokerConfig();
        private boolean topicAdded;

        private Builder() {
            new CommandLine(config).parseArgs(); // applies every option's default
        }

        private BrokerConfig config() {
            if (config == null) {
                throw new IllegalStateException("build() was called: a builder makes one config");
            }
            return config;
        }

        public Builder port(int port) {
            config().port = port;
            return this;
        }

        /** Adds a topic; the first one replaces the default topic. */
        public Builder topic(String name, int partitions) {
            if (!topicAdded) {
                config().topics.clear();
                topicAdded = true;
            }
            config().topics.add(new TopicSpec(name, partitions));
            return this;
        }

        public Builder followers(int followers) {
            config().followers = followers;
            return this;
        }

        public Builder replicaLag(long meanMs, long jitterMs) {
            config().replicaLagMs = meanMs;
            config().replicaLagJitterMs = jitterMs;
            return this;
        }

        public Builder stallReplica(int replicaId) {
            config().stalledReplicas.add(replicaId);
            return this;
        }

        /** Stalled replicas stall for {@code stallMs} after every {@code healthyMs} of fetching. */
        public Builder stallCycle(long stallMs, long healthyMs) {
            config().stallMs = stallMs;
            config().healthyMs = healthyMs;
            return this;
        }

        /** The stalled replicas fetch for {@code stallAfterMs}, then stall for good (no stall cycle). */
        public Builder stallAfterMs(long stallAfterMs) {
            config().stallAfterMs = stallAfterMs;
            return this;
        }

        public Builder replicaLagTimeMaxMs(long replicaLagTimeMaxMs) {
            config().replicaLagTimeMaxMs = replicaLagTimeMaxMs;
            return this;
        }

        public Builder minInsyncReplicas(int minInsyncReplicas) {
            config().minInsyncReplicas = minInsyncReplicas;
            return this;
        }

        public Builder maxFrameBytes(int maxFrameBytes) {
            config().maxFrameBytes = maxFrameBytes;
            return this;
        }

        public Builder maxInFlightPerConnection(int maxInFlightPerConnection) {
            config().maxInFlightPerConnection = maxInFlightPerConnection;
            return this;
        }

        public Builder maxResponseBytes(int maxResponseBytes) {
            config().maxResponseBytes = maxResponseBytes;
            return this;
        }

        public Builder requestHandlers(int requestHandlers) {
            config().requestHandlers = requestHandlers;
            return this;
        }

        public Builder retentionBytes(long retentionBytes) {
            config().retentionBytes = retentionBytes;
            return this;
        }

        public Builder maxParkedRequests(int maxParkedRequests) {
            config().maxParkedRequests = maxParkedRequests;
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            config().maxConnections = maxConnections;
            return this;
        }

        public Builder idleTimeoutMs(long idleTimeoutMs) {
            config().idleTimeoutMs = idleTimeoutMs;
            return this;
        }

        public Builder groupSessionTimeoutMs(int minMs, int maxMs) {
            config().groupMinSessionTimeoutMs = minMs;
            config().groupMaxSessionTimeoutMs = maxMs;
            return this;
        }

        public Builder groupInitialRebalanceDelayMs(int delayMs) {
            config().groupInitialRebalanceDelayMs = delayMs;
            return this;
        }

        public Builder groupMaxSize(int maxSize) {
            config().groupMaxSize = maxSize;
            return this;
        }

        public Builder maxGroups(int maxGroups) {
            config().maxGroups = maxGroups;
            return this;
        }

        public Builder maxGroupsPerClient(int maxGroupsPerClient) {
            config().maxGroupsPerClient = maxGroupsPerClient;
            return this;
        }

        public Builder offsetsRetention(int minutes, long checkIntervalMs) {
            config().offsetsRetentionMinutes = minutes;
            config().offsetsRetentionCheckIntervalMs = checkIntervalMs;
            return this;
        }

        /**
         * The config, {@linkplain BrokerConfig#validate() validated}.
         *
         * @throws IllegalArgumentException naming the setting(s) at fault
         */
        public Builder autoCreateTopics(boolean autoCreateTopics) {
            config().autoCreateTopics = autoCreateTopics;
            return this;
        }

        public Builder maxPartitions(int maxPartitions) {
            config().maxPartitions = maxPartitions;
            return this;
        }

        public BrokerConfig build() {
            BrokerConfig built = config().validate();
            config = null;
            return built;
        }
    }
}
