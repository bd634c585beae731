package io.purgatory.demo.broker.config;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The demo broker's settings table: every setting defined once, as a {@link Setting} (option name,
 * type, default, range, documentation, static or dynamic). The command line ({@link #addTo}),
 * {@link BrokerConfig} and its builder, the range checks, {@link DynamicSetting} (what
 * {@code kafka-configs} may change) and the group coordinator's settings come from it; a test
 * ({@code BrokerMainTest.docsDemoMdTablesEveryOptionWithItsDefault}) holds docs/demo.md's option
 * table to it.
 *
 * <p><b>To add a setting</b>: a constant here and its entry in {@link #ALL}; then read it where it
 * is used, {@code config.get(BrokerSettings.YOUR_SETTING)}; and give it its row in docs/demo.md's
 * table under "## demo-broker" (the test names what is missing). A check across settings goes into
 * {@link BrokerConfig#validate()}; a setting {@code kafka-configs} may change is declared
 * {@link Setting#dynamic} and gets a {@link DynamicSetting} constant.
 *
 * <p>Thread-safe: constants only.
 */
public final class BrokerSettings {
    /** The largest byte size of a frame or a batch: 1 GiB, so a size plus a header never overflows an {@code int}. */
    private static final int MAX_BYTES = 1 << 30;
    /** One day: the bound of the group timeouts, which Kafka keeps as {@code int} milliseconds. */
    private static final int DAY_MS = 86_400_000;
    /** The bound of every count (connections, requests, groups, partitions): far below overflowing an {@code int} sum. */
    private static final int MAX_COUNT = 1_000_000;
    private static final long MAX_MS = Setting.MAX_DURATION_MS;

    public static final Setting<Integer> PORT = Setting.ofInt("--port", "PORT", 9092, 0, 65_535,
            "TCP port to listen on; 0 picks a free port (logged, and written to --port-file).");
    public static final Setting<List<TopicSpec>> TOPICS = Setting.ofList("--topic", "NAME:PARTITIONS", TopicSpec.class, "demo:3",
            new TopicSpec.Converter(), "A topic to serve, with its partition count (NAME alone: " + TopicSpec.DEFAULT_PARTITIONS
                    + " partition); repeatable. Names as Kafka's: 1 to 249 of a-z A-Z 0-9 . _ -.");
    public static final Setting<Integer> REPLICAS = Setting.ofInt("--replicas", "N", 2, 0, 1_000,
            "Simulated follower replicas per partition, ids 1..N (the leader is replica 0).");
    public static final Setting<Long> REPLICA_LAG_MS = Setting.ofLong("--replica-lag-ms", "MS", 5, 0, MAX_MS,
            "Mean delay before a follower fetches an append.");
    public static final Setting<Long> REPLICA_LAG_JITTER_MS = Setting.ofLong("--replica-lag-jitter-ms", "MS", 2, 0, MAX_MS,
            "Each fetch lag is uniform in [mean - jitter, mean + jitter]; at most the mean.");
    public static final Setting<List<Integer>> STALL_REPLICAS = Setting.ofList("--stall-replica", "ID", Integer.class, null, null,
            "Follower that stalls (fetches nothing), on every partition; repeatable.");
    public static final Setting<Long> STALL_MS = Setting.ofLong("--stall-ms", "MS", 0, 0, MAX_MS,
            "How long each stall lasts; 0 = the stalled replicas never resume.");
    public static final Setting<Long> HEALTHY_MS = Setting.ofLong("--healthy-ms", "MS", 3000, 0, MAX_MS,
            "With --stall-ms: fetching time before the first stall and between stalls.");
    public static final Setting<Long> STALL_AFTER_MS = Setting.ofLong("--stall-after-ms", "MS", 0, 0, MAX_MS,
            "Without --stall-ms: the stalled replicas fetch for MS, then stall for good (start a client first,"
                    + " then watch its produces park).");
    public static final Setting<Long> REPLICA_LAG_TIME_MAX_MS = Setting.ofLong("--replica-lag-time-max-ms", "MS", 30_000, 1, MAX_MS,
            "A follower not caught up for this long leaves the ISR (Kafka's replica.lag.time.max.ms).")
            .dynamic("replica.lag.time.max.ms", null);
    public static final Setting<Integer> MIN_INSYNC_REPLICAS = Setting.ofInt("--min-insync-replicas", "N", 2, 1, Short.MAX_VALUE,
            "acks=-1 needs this many in-sync replicas, leader included (min.insync.replicas);"
                    + " below it, produces get NOT_ENOUGH_REPLICAS.")
            .dynamic("min.insync.replicas", "min.insync.replicas");
    public static final Setting<Integer> MAX_FRAME_BYTES = Setting.ofInt("--max-frame-bytes", "BYTES", 16_777_216, 1024, MAX_BYTES,
            "Largest request accepted; a bigger or negative length prefix closes that connection.");
    public static final Setting<Integer> MAX_IN_FLIGHT_PER_CONNECTION = Setting.ofInt("--max-in-flight-per-connection", "N", 1024, 1,
            MAX_COUNT, "A connection with N requests awaiting responses is not read from until one is answered"
                    + " (Kafka reads one at a time).");
    public static final Setting<Integer> MAX_RESPONSE_BYTES = Setting.ofInt("--max-response-bytes", "BYTES", 104_857_600, 65_536,
            MAX_BYTES, "Largest response: a DescribeGroups or OffsetFetch answers the groups that do not fit with"
                    + " POLICY_VIOLATION, checked before they are built; any other response past it closes its connection"
                    + " (Kafka's socket.request.max.bytes bounds requests alike).");
    public static final Setting<Integer> REQUEST_HANDLERS = Setting.ofInt("--request-handlers", "N", 4, 1, 256,
            "Threads that parse and handle requests, off the network threads (Kafka's num.io.threads, 8 there),"
                    + " cheaper clients first, then smaller requests, one thread kept for requests of at most 16 KiB from light"
                    + " clients; 4 suits 2 cores: a slow request holds one of them, never the other connections.");
    public static final Setting<Integer> REQUEST_QUOTA_WINDOW_MS = Setting.ofInt("--request-quota-window-ms", "MS", 1000, 1, DAY_MS,
            "The window over which each connection's share of the request handlers' time is measured (Kafka's request"
                    + " quotas, quota.window.size.seconds): a connection gets min(request-handlers, cores - 1) x MS / (connections"
                    + " active in the last two windows) of handler CPU time per window; past it, its response carries"
                    + " throttle_time_ms and its next request waits until then (at most MS).");
    public static final Setting<Long> NETWORK_BYTES_PER_SECOND = Setting.ofLong("--network-bytes-per-second", "BYTES", 125_000_000, 1,
            1L << 50, "The rate each way of the link the connections share (125,000,000: 1 Gb/s): BYTES of requests, or of"
                    + " responses, take it a second, and each connection gets MS / (connections active in the last two windows)"
                    + " of the link's time each way per request quota window; past it, as past its share of the handlers' time.");
    public static final Setting<Long> RETENTION_BYTES = Setting.ofLong("--retention-bytes", "BYTES", 67_108_864, -1, 1L << 50,
            "Bytes of record batches each partition keeps in memory; the oldest are dropped beyond it"
                    + " (the newest always stays; the log start offset moves, and fetching below it gets OFFSET_OUT_OF_RANGE);"
                    + " -1: no limit.")
            .dynamic("log.retention.bytes", "retention.bytes");
    public static final Setting<Integer> MAX_PARKED_REQUESTS = Setting.ofInt("--max-parked-requests", "N", 100_000, 1, 10 * MAX_COUNT,
            "acks=-1 produces waiting for replicas, all connections together; past N one is answered at once"
                    + " with THROTTLING_QUOTA_EXCEEDED (retriable) and nothing is appended.");
    public static final Setting<Long> MEMORY_BUDGET_BYTES = Setting.ofLong("--memory-budget-bytes", "BYTES", -1, -1, 1L << 50,
            "Heap that what clients make the broker hold may take, counted where it is created and released where it goes:"
                    + " the logs' record batches (a half; past it the oldest batches of the largest logs are dropped, and an"
                    + " append that still does not fit gets KAFKA_STORAGE_ERROR), parked produces and fetches by the partitions"
                    + " they watch (an eighth; past it an acks=-1 produce gets THROTTLING_QUOTA_EXCEEDED and appends nothing,"
                    + " a fetch is answered at once), committed offsets with their metadata (an eighth) and groups (a sixteenth;"
                    + " past either, groups without members are evicted, the requesting address's first, then"
                    + " COORDINATOR_NOT_AVAILABLE), and requests and responses in flight (the rest; past the whole"
                    + " budget no connection reads another request until some are answered). -1: half of the maximum heap"
                    + " (-Xmx); at least 1048576 otherwise.");
    public static final Setting<Integer> MAX_CONNECTIONS = Setting.ofInt("--max-connections", "N", 1000, 1, MAX_COUNT,
            "Open client connections; past N a new one is accepted and closed at once (logged at most once"
                    + " every 10 s). Keep it below the open file limit (ulimit -n).");
    public static final Setting<Integer> MAX_CONNECTION_RATE_PER_ADDRESS = Setting.ofInt("--max-connection-rate-per-address", "N", 1000, 1,
            MAX_COUNT, "New connections a second from one address, and as many at once (Kafka's per-IP"
                    + " connection_creation_rate quota); past it a new one is accepted and closed at once (logged at most once"
                    + " every 10 s).");
    public static final Setting<Long> IDLE_TIMEOUT_MS = Setting.ofLong("--idle-timeout-ms", "MS", 600_000, 1, MAX_MS,
            "A connection with no request in flight that sends nothing for MS is closed (Kafka's connections.max.idle.ms).");
    public static final Setting<Integer> GROUP_MIN_SESSION_TIMEOUT_MS = Setting.ofInt("--group-min-session-timeout-ms", "MS", 6000,
            1, DAY_MS, "A JoinGroup with a shorter session timeout gets INVALID_SESSION_TIMEOUT (Kafka's group.min.session.timeout.ms).");
    public static final Setting<Integer> GROUP_MAX_SESSION_TIMEOUT_MS = Setting.ofInt("--group-max-session-timeout-ms", "MS",
            1_800_000, 1, DAY_MS,
            "A JoinGroup with a longer session timeout gets INVALID_SESSION_TIMEOUT (Kafka's group.max.session.timeout.ms).");
    public static final Setting<Integer> GROUP_INITIAL_REBALANCE_DELAY_MS = Setting.ofInt("--group-initial-rebalance-delay-ms", "MS",
            3000, 0, DAY_MS, "How long the first rebalance of an empty group waits for more members, again for each"
                    + " new one within the rebalance timeout (Kafka's group.initial.rebalance.delay.ms).");
    public static final Setting<Integer> GROUP_MAX_SIZE = Setting.ofInt("--group-max-size", "N", 1000, 1, MAX_COUNT,
            "Members a group may have, those asked for a member id included; past N a JoinGroup gets"
                    + " GROUP_MAX_SIZE_REACHED (Kafka's group.max.size).");
    public static final Setting<Integer> MAX_GROUPS = Setting.ofInt("--max-groups", "N", 10_000, 1, MAX_COUNT,
            "Groups the coordinator holds (each keeps its committed offsets while it has any); past N a"
                    + " request that would create one evicts the group longest without members (with its offsets),"
                    + " or gets COORDINATOR_NOT_AVAILABLE when every group has members.");
    public static final Setting<Integer> MAX_GROUPS_PER_CLIENT = Setting.ofInt("--max-groups-per-client", "N", 1000, 1, MAX_COUNT,
            "Groups one client id at one address may have created that are still held; past N a request of that client id"
                    + " from that address that would create one evicts that client id's group longest without members (with its"
                    + " offsets), or gets COORDINATOR_NOT_AVAILABLE when all of them have members; so one client cannot fill"
                    + " --max-groups, and a client elsewhere claiming its id counts against its own address.");
    public static final Setting<Integer> MAX_GROUPS_PER_ADDRESS = Setting.ofInt("--max-groups-per-address", "N", 5000, 1, MAX_COUNT,
            "Groups the clients at one address may have created that are still held, whatever client ids they claim;"
                    + " past N a request from that address that would create one evicts that address's group longest without"
                    + " members (with its offsets), or gets COORDINATOR_NOT_AVAILABLE when all of them have members.");
    public static final Setting<Integer> OFFSETS_RETENTION_MINUTES = Setting.ofInt("--offsets-retention-minutes", "MIN", 10_080, 1,
            (int) (MAX_MS / 60_000L), "An empty group keeps its committed offsets this long after it became empty (a group that never"
                    + " had members: each offset this long after its commit); then they go, and the group with them (Kafka's"
                    + " offsets.retention.minutes).");
    public static final Setting<Long> OFFSETS_RETENTION_CHECK_INTERVAL_MS = Setting.ofLong("--offsets-retention-check-interval-ms",
            "MS", 600_000, 1, MAX_MS, "How often expired offsets are looked for (Kafka's offsets.retention.check.interval.ms).");
    public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.ofInt("--max-message-bytes", "BYTES", 1_048_588, 0, MAX_BYTES,
            "The largest record batch a produce may append (Kafka's message.max.bytes; a topic's max.message.bytes"
                    + " overrides it, and kafka-configs changes either while the broker runs); a larger one gets MESSAGE_TOO_LARGE.")
            .dynamic("message.max.bytes", "max.message.bytes");
    public static final Setting<Integer> NUM_PARTITIONS = Setting.ofInt("--num-partitions", "N", 1, 1, MAX_COUNT,
            "Partitions of a topic created without a count (kafka-topics --create without --partitions, and"
                    + " auto-created topics; Kafka's num.partitions).");
    public static final Setting<Boolean> AUTO_CREATE_TOPICS = Setting.ofFlag("--auto-create-topics", true,
            "Create a topic (--num-partitions partitions) when a client's metadata request names it and allows it,"
                    + " as Kafka's auto.create.topics.enable, on by default as Kafka's: kcat -P -t new-topic just works."
                    + " --no-auto-create-topics: only kafka-topics --create makes topics.");
    public static final Setting<Integer> MAX_PARTITIONS = Setting.ofInt("--max-partitions", "N", 10_000, 1, MAX_COUNT,
            "Partitions the broker holds in all topics together; a create past it gets POLICY_VIOLATION, and a fetch"
                    + " naming more partitions INVALID_REQUEST.");
    public static final Setting<Integer> MAX_PARTITIONS_PER_REQUEST = Setting.ofInt("--max-partitions-per-request", "N", 10_000, 1,
            MAX_COUNT, "Partitions one CreateTopics or CreatePartitions request may add; more gets POLICY_VIOLATION"
                    + " (\"Excessively large number of partitions per request.\", as from Kafka's controller).");
    public static final Setting<Integer> MAX_TOPICS_PER_REQUEST = Setting.ofInt("--max-topics-per-request", "N", 1000, 1, MAX_COUNT,
            "Topics one CreateTopics, CreatePartitions or DeleteTopics request may name, and a metadata request may"
                    + " auto-create; more gets POLICY_VIOLATION.");

    // the process around the broker: files for scripts, the dashboard, the console

    public static final Setting<Path> PORT_FILE = Setting.of("--port-file", "FILE", Path.class, null,
            "Write the port to FILE once the broker listens (for scripts that start it with --port 0).");
    public static final Setting<Integer> HTTP_PORT = Setting.ofInt("--http-port", "PORT", 8080, -1, 65_535,
            "Port of the live dashboard (/), its Prometheus metrics (/metrics) and the replica controls;"
                    + " 0 picks a free port (logged, and written to --http-port-file), -1 turns HTTP off.");
    public static final Setting<String> HTTP_HOST = Setting.of("--http-host", "ADDRESS", String.class, "127.0.0.1",
            "Address the dashboard listens on; the default serves this machine only, 0.0.0.0 serves every"
                    + " network (anyone who reaches it can stall replicas).");
    public static final Setting<Path> HTTP_PORT_FILE = Setting.of("--http-port-file", "FILE", Path.class, null,
            "Write the dashboard's port to FILE once it listens (for scripts that start it with --http-port 0).");
    public static final Setting<Boolean> CONSOLE = Setting.ofFlag("--console", false,
            "Read commands from standard input: 'stall ID', 'resume ID', 'isr', 'quit'.");

    /** Every setting, in the order of the command line's help. */
    public static final List<Setting<?>> ALL = List.of(PORT, TOPICS, REPLICAS, REPLICA_LAG_MS, REPLICA_LAG_JITTER_MS, STALL_REPLICAS,
            STALL_MS, HEALTHY_MS, STALL_AFTER_MS, REPLICA_LAG_TIME_MAX_MS, MIN_INSYNC_REPLICAS, MAX_FRAME_BYTES,
            MAX_IN_FLIGHT_PER_CONNECTION, MAX_RESPONSE_BYTES, REQUEST_HANDLERS, REQUEST_QUOTA_WINDOW_MS, NETWORK_BYTES_PER_SECOND,
            RETENTION_BYTES,
            MAX_PARKED_REQUESTS, MEMORY_BUDGET_BYTES, MAX_CONNECTIONS, MAX_CONNECTION_RATE_PER_ADDRESS, IDLE_TIMEOUT_MS,
            GROUP_MIN_SESSION_TIMEOUT_MS, GROUP_MAX_SESSION_TIMEOUT_MS, GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SIZE, MAX_GROUPS,
            MAX_GROUPS_PER_CLIENT, MAX_GROUPS_PER_ADDRESS, OFFSETS_RETENTION_MINUTES, OFFSETS_RETENTION_CHECK_INTERVAL_MS,
            MAX_MESSAGE_BYTES, NUM_PARTITIONS, AUTO_CREATE_TOPICS, MAX_PARTITIONS, MAX_PARTITIONS_PER_REQUEST, MAX_TOPICS_PER_REQUEST,
            PORT_FILE, HTTP_PORT, HTTP_HOST, HTTP_PORT_FILE, CONSOLE);

    private BrokerSettings() {
    }

    /** Adds every setting's option to a command line. */
    public static void addTo(CommandSpec command) {
        ALL.forEach(setting -> command.addOption(setting.optionSpec()));
    }
}
