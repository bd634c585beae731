package io.purgatory.demo.client;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code group-bench} command: many classic-protocol group members, written here (not
 * KafkaConsumers), sharing a few connections, measure the broker's group coordinator. It forms
 * {@code --groups} groups of {@code --members} members (JoinGroup, MEMBER_ID_REQUIRED, JoinGroup,
 * SyncGroup with the leader's assignment), then either times {@code --rebalances} rebalances of the
 * formed groups (every member rejoins with new metadata) or, with {@code --heartbeat-s}, has every
 * member heartbeat once per {@code --heartbeat-interval-ms} and reports the broker's CPU time per
 * heartbeat and its heartbeat purgatory over a steady-state window.
 *
 * <p>Not thread-safe: picocli fills the fields, then {@link #call()} runs once on one thread. Each
 * {@link Member} is confined to its connection's event loop, where all its requests are built
 * (the calling thread reads its member id for LeaveGroup once its heartbeats have stopped);
 * the counters are {@link LongAdder}s and a {@link Recorder}; the list of heartbeat tickers is the
 * calling thread's.
 */
@Command(name = "group-bench", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        version = "group-bench 0.1.0",
        description = {
            "Measures a broker's classic group coordinator (made for demo-broker) with many",
            "group members of its own, several to a connection (responses are matched by",
            "correlation id, as Kafka allows).",
            "",
            "It forms --groups groups of --members members each, --forming-groups at a time,",
            "and prints, per formation, the time from the first JoinGroup sent to the last",
            "JoinGroup answer and to the last SyncGroup answer (a new group's first",
            "rebalance waits the broker's group.initial.rebalance.delay.ms). Then:",
            "  --rebalances N   N rebalances of the formed groups: every member rejoins at",
            "                   once with new subscription metadata, the leader assigns,",
            "                   all sync; each timed the same way",
            "  --heartbeat-s S  every member heartbeats once per --heartbeat-interval-ms",
            "                   (spread evenly); after --warmup-s, an S-second window reports",
            "                   heartbeats answered per second, the broker's CPU time per",
            "                   heartbeat (with --broker-pid; also net of its CPU before any",
            "                   member joined, --idle-s) and its heartbeat purgatory (with",
            "                   --state-url), a line a second and a summary",
            "A member whose previous heartbeat is unanswered skips its turn (counted late),",
            "as a real consumer would: the rate answered is the rate the broker sustained.",
            "A member answered REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION",
            "(a SyncGroup, or a heartbeat: counted as a rejoin, the last two also as errors)",
            "joins again, as Kafka's consumers do.",
            "The groups are named group-bench-<pid>-<n>; at the end every member leaves",
            "(LeaveGroup), so the next run starts on a quiet broker.",
            ""},
        footer = {"",
            "Example: 100 groups of 1,000 members heartbeating once a second",
            "  java -jar demo-broker/target/demo-broker.jar &",
            "  java -cp demo-client/target/demo-client.jar \\",
            "      io.purgatory.demo.client.GroupBench \\",
            "      --groups 100 --members 1000 --heartbeat-s 60 \\",
            "      --broker-pid $(pgrep -f demo-broker.jar) \\",
            "      --state-url http://localhost:8080/api/state",
            "A 1,000-member group rebalancing 5 times:",
            "  ... GroupBench --groups 1 --members 1000 --rebalances 5",
            "",
            "Exit status: 0 every request answered without an error; 1 otherwise or no",
            "connection; 2 invalid options"},
        exitCodeOnInvalidInput = 2)
public final class GroupBench implements Callable<Integer> {
    private static final String PROTOCOL = "range";
    private static final long TICK_MS = 10;
    private static final long ROUND_TIMEOUT_S = 600;
    /** Answers after which Kafka's consumers join again (UNKNOWN_MEMBER_ID as a new member). */
    private static final Set<Errors> REJOIN = EnumSet.of(Errors.REBALANCE_IN_PROGRESS, Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION);

    @Spec
    private CommandSpec spec;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", defaultValue = "localhost:9092", converter = ClientMain.EndpointConverter.class,
            description = "The broker. Default: ${DEFAULT-VALUE}.")
    Endpoint bootstrap;

    @Option(names = "--groups", paramLabel = "G", defaultValue = "1", description = "Groups. Default: ${DEFAULT-VALUE}.")
    int groups;

    @Option(names = "--members", paramLabel = "M", defaultValue = "1000",
            description = "Members per group, at most the broker's group.max.size. Default: ${DEFAULT-VALUE}.")
    int members;

    @Option(names = "--connections", paramLabel = "C", defaultValue = "100",
            description = "Connections the members share. Each group has C/G of them to itself, its members round robin;"
                    + " with C < G, group g is on connection g mod C with others, and a heartbeat waits for the answers"
                    + " before it on its connection (answers come in order), parked JoinGroups of a group still forming"
                    + " included. Each connection carries up to G*M/C parked JoinGroups at once: keep that under the"
                    + " broker's --max-in-flight-per-connection. Default: ${DEFAULT-VALUE}.")
    int connections;

    @Option(names = "--io-threads", paramLabel = "N", defaultValue = "1",
            description = "Event loop threads of the bench. Default: ${DEFAULT-VALUE}.")
    int ioThreads;

    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "demo",
            description = "Topic the members subscribe to. Default: ${DEFAULT-VALUE}.")
    String topic;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
            description = "Partitions of the topic that the leader assigns, round robin. Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--session-timeout-ms", paramLabel = "MS", defaultValue = "45000",
            description = "The members' session timeout (Kafka's consumer default). Default: ${DEFAULT-VALUE}.")
    int sessionTimeoutMs;

    @Option(names = "--rebalance-timeout-ms", paramLabel = "MS", defaultValue = "60000",
            description = "The members' rebalance timeout. Default: ${DEFAULT-VALUE}.")
    int rebalanceTimeoutMs;

    @Option(names = "--forming-groups", paramLabel = "N", defaultValue = "10",
            description = "Groups formed at once, wave after wave (each wave waits for the broker's initial rebalance"
                    + " delay). Default: ${DEFAULT-VALUE}.")
    int formingGroups;

    @Option(names = "--rebalances", paramLabel = "N", defaultValue = "0",
            description = "Rebalances to time after the groups formed. Default: ${DEFAULT-VALUE}.")
    int rebalances;

    @Option(names = "--heartbeat-s", paramLabel = "S", defaultValue = "0",
            description = "Length of the measured heartbeat window; 0 = no heartbeats. Default: ${DEFAULT-VALUE}.")
    int heartbeatSeconds;

    @Option(names = "--heartbeat-interval-ms", paramLabel = "MS", defaultValue = "1000",
            description = "Each member's heartbeat period. Default: ${DEFAULT-VALUE}.")
    int heartbeatIntervalMs;

    @Option(names = "--warmup-s", paramLabel = "S", defaultValue = "15",
            description = "Heartbeats before the window starts, after every group formed. Default: ${DEFAULT-VALUE}.")
    int warmupSeconds;

    @Option(names = "--idle-s", paramLabel = "S", defaultValue = "5",
            description = "With --heartbeat-s and --broker-pid: the broker's CPU is first measured for S seconds with no"
                    + " member, and the CPU per heartbeat is also given net of it. Default: ${DEFAULT-VALUE}.")
    int idleSeconds;

    @Option(names = "--broker-pid", paramLabel = "PID", defaultValue = "-1",
            description = "The broker's process id, for its CPU time (same machine). Default: none.")
    long brokerPid;

    @Option(names = "--state-url", paramLabel = "URL",
            description = "The broker's dashboard state (JSON), for the heartbeat purgatory's size, e.g. http://localhost:8080/api/state.")
    URI stateUrl;

    private final LongAdder answered = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final LongAdder rejoins = new LongAdder();
    private final Map<Errors, LongAdder> errorCodes = new ConcurrentHashMap<>();
    private final Recorder latencyMicros = new Recorder(3);
    private final List<ScheduledFuture<?>> tickers = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return new CommandLine(new GroupBench());
    }

    /** One member: its group, member id, generation (-1 while joining) and subscription. Confined to its connection's event loop (see the class comment). */
    private static final class Member {
        final String group;
        final KafkaConnection connection;
        String memberId = JoinGroupRequest.UNKNOWN_MEMBER_ID;
        int generation = -1;
        byte[] metadata;
        boolean heartbeatInFlight;

        Member(String group, KafkaConnection connection) {
            this.group = group;
            this.connection = connection;
        }
    }

    /** One round of one group: nanoseconds from its first JoinGroup sent to its last JoinGroup answer and to its last SyncGroup answer. */
    record RoundTimes(long joinNanos, long syncNanos) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        validate();
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
        List<KafkaConnection> open = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                open.add(KafkaConnection.open(loop, bootstrap, 10_000, "group-bench-" + c));
            }
            List<List<Member>> all = new ArrayList<>();
            int perGroup = Math.max(1, connections / groups);
            for (int g = 0; g < groups; g++) {
                List<Member> group = new ArrayList<>();
                for (int m = 0; m < members; m++) {
                    group.add(new Member("group-bench-" + ProcessHandle.current().pid() + "-" + g, open.get((g * perGroup + m % perGroup) % connections)));
                }
                all.add(group);
            }
            out.printf(Locale.ROOT, "%d group(s) x %d members = %d members on %d connection(s) to %s%n", groups, members,
                    groups * members, connections, bootstrap);
            out.flush();
            double idleBrokerCores = heartbeatSeconds > 0 ? idleBrokerCores(out) : -1;
            if (heartbeatSeconds > 0) {
                startHeartbeats(all);
            }
            List<RoundTimes> formations = new ArrayList<>();
            for (int first = 0; first < groups; first += formingGroups) { // in waves: no storm of G*M JoinGroups at once
                formations.addAll(rebalanceAll(all.subList(first, Math.min(groups, first + formingGroups)), 0));
            }
            report(out, "formation", formations);
            for (int round = 1; round <= rebalances; round++) {
                report(out, "rebalance " + round, rebalanceAll(all, round));
            }
            if (heartbeatSeconds > 0) {
                measureHeartbeats(out, idleBrokerCores, open);
            }
            long failed = errors.sum();
            tickers.forEach(ticker -> ticker.cancel(false));
            leave(all);
            return failed == 0 ? 0 : 1;
        } catch (ClientException | CompletionException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            out.println("group-bench: " + (cause.getMessage() != null ? cause.getMessage() : cause)); // a timeout has no message
            return 1;
        } finally {
            out.flush();
            open.forEach(KafkaConnection::close);
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
    }

    private void validate() {
        if (groups < 1 || members < 1 || connections < 1 || ioThreads < 1 || partitions < 1 || formingGroups < 1
                || heartbeatIntervalMs < TICK_MS
                || rebalances < 0 || heartbeatSeconds < 0 || warmupSeconds < 0 || idleSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--groups, --members, --connections, --io-threads, --partitions and --forming-groups must be"
                    + " at least 1, --heartbeat-interval-ms at least " + TICK_MS + ", the others at least 0");
        }
        if (rebalances > 0 && heartbeatSeconds > 0) {
            throw new ParameterException(spec.commandLine(), "--rebalances and --heartbeat-s: one or the other (a rebalance would"
                    + " answer heartbeats REBALANCE_IN_PROGRESS)");
        }
    }

    /** Every group rebalances at once; each member subscribes with {@code round} as its user data, so that each round is a change. */
    private List<RoundTimes> rebalanceAll(List<List<Member>> all, int round) {
        List<CompletableFuture<RoundTimes>> rounds = all.stream().map(group -> rebalance(group, round)).toList();
        return CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new)).thenApply(v -> rounds.stream().map(CompletableFuture::join)
                .toList()).orTimeout(ROUND_TIMEOUT_S, TimeUnit.SECONDS).join();
    }

    private CompletableFuture<RoundTimes> rebalance(List<Member> group, int round) {
        long start = System.nanoTime();
        LongAccumulator lastJoin = new LongAccumulator(Math::max, start);
        LongAccumulator lastSync = new LongAccumulator(Math::max, start);
        byte[] metadata = bytes(ConsumerProtocol.serializeSubscription(new Subscription(List.of(topic), ByteBuffer.allocate(4).putInt(0, round))));
        // each connection's first JoinGroups in one task on its event loop: all are written before any answer is read, so
        // none waits behind another member's parked JoinGroup (a connection's answers come in order)
        List<CompletableFuture<Void>> done = byConnection(group).values().stream().map(members -> CompletableFuture.supplyAsync(
                () -> members.stream().map(member -> {
                    member.metadata = metadata;
                    return joinAndSync(member, lastJoin).thenAccept(v -> lastSync.accumulate(System.nanoTime()));
                }).toArray(CompletableFuture[]::new), members.get(0).connection.eventLoop()).thenCompose(CompletableFuture::allOf)).toList();
        return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                .thenApply(v -> new RoundTimes(lastJoin.get() - start, lastSync.get() - start));
    }

    /**
     * JoinGroup (again with the member id the broker gives, MEMBER_ID_REQUIRED), then SyncGroup; from
     * the start when the SyncGroup is answered with one of {@link #REJOIN} (the group rebalances
     * again because a member joined late, say), as Kafka's consumers do. The member does not
     * heartbeat until the JoinGroup answer.
     */
    private CompletableFuture<Void> joinAndSync(Member member, LongAccumulator lastJoin) {
        member.generation = -1;
        return join(member).thenCompose(joined -> {
            lastJoin.accumulate(System.nanoTime());
            return sync(member, joined);
        }).thenCompose(error -> error == Errors.NONE ? CompletableFuture.completedFuture(null) : joinAndSync(member, lastJoin));
    }

    /** After {@code error}, the member joins again, as a new member when the broker no longer knows it. */
    private static void forget(Member member, Errors error) {
        if (error == Errors.UNKNOWN_MEMBER_ID) {
            member.memberId = JoinGroupRequest.UNKNOWN_MEMBER_ID;
        }
    }

    private CompletableFuture<JoinGroupResponseData> join(Member member) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName(PROTOCOL).setMetadata(member.metadata));
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(member.group).setMemberId(member.memberId)
                .setSessionTimeoutMs(sessionTimeoutMs).setRebalanceTimeoutMs(rebalanceTimeoutMs)
                .setProtocolType(ConsumerProtocol.PROTOCOL_TYPE).setProtocols(protocols);
        return member.connection.send(new JoinGroupRequest.Builder(data).build(), true).thenCompose(response -> {
            JoinGroupResponseData joined = ((JoinGroupResponse) response).data();
            if (joined.errorCode() == Errors.UNKNOWN_MEMBER_ID.code() && !JoinGroupRequest.UNKNOWN_MEMBER_ID.equals(member.memberId)) {
                forget(member, Errors.UNKNOWN_MEMBER_ID); // its session expired: a new member
                return join(member);
            }
            member.memberId = joined.memberId();
            if (joined.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                return join(member);
            }
            check("JoinGroup", joined.errorCode());
            member.generation = joined.generationId();
            return CompletableFuture.completedFuture(joined);
        });
    }

    /** The SyncGroup, the leader's with an assignment; completes with NONE or one of {@link #REJOIN}, fails on other errors. */
    private CompletableFuture<Errors> sync(Member member, JoinGroupResponseData joined) {
        SyncGroupRequestData data = new SyncGroupRequestData().setGroupId(member.group).setMemberId(member.memberId)
                .setGenerationId(member.generation).setProtocolType(joined.protocolType()).setProtocolName(joined.protocolName());
        if (joined.leader().equals(joined.memberId())) {
            List<JoinGroupResponseData.JoinGroupResponseMember> joinedMembers = joined.members();
            List<List<TopicPartition>> assigned = new ArrayList<>();
            joinedMembers.forEach(m -> assigned.add(new ArrayList<>()));
            for (int p = 0; p < partitions; p++) {
                assigned.get(p % joinedMembers.size()).add(new TopicPartition(topic, p));
            }
            List<SyncGroupRequestAssignment> assignments = new ArrayList<>();
            for (int i = 0; i < joinedMembers.size(); i++) {
                assignments.add(new SyncGroupRequestAssignment().setMemberId(joinedMembers.get(i).memberId())
                        .setAssignment(bytes(ConsumerProtocol.serializeAssignment(new Assignment(assigned.get(i))))));
            }
            data.setAssignments(assignments);
        }
        return member.connection.send(new SyncGroupRequest.Builder(data).build(), true).thenApply(response -> {
            Errors error = Errors.forCode(((SyncGroupResponse) response).data().errorCode());
            if (!REJOIN.contains(error)) {
                check("SyncGroup", error.code());
            }
            forget(member, error);
            return error;
        });
    }

    private static void check(String api, short errorCode) {
        if (errorCode != Errors.NONE.code()) {
            throw new CompletionException(new ClientException(api + " answered " + Errors.forCode(errorCode)));
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static void report(PrintWriter out, String what, List<RoundTimes> times) {
        long[] joins = times.stream().mapToLong(RoundTimes::joinNanos).sorted().toArray();
        long[] syncs = times.stream().mapToLong(RoundTimes::syncNanos).sorted().toArray();
        out.printf(Locale.ROOT, "%s: first JoinGroup to last JoinGroup answer %s ms, to last SyncGroup answer %s ms%n", what,
                spread(joins), spread(syncs));
        out.flush();
    }

    /** One value's milliseconds, or the median and maximum over several groups. */
    static String spread(long[] sortedNanos) {
        double max = sortedNanos[sortedNanos.length - 1] / 1e6;
        return sortedNanos.length == 1 ? String.format(Locale.ROOT, "%.1f", max)
                : String.format(Locale.ROOT, "%.1f median, %.1f max over %d groups", sortedNanos[sortedNanos.length / 2] / 1e6, max,
                        sortedNanos.length);
    }

    /**
     * On each connection's event loop, every {@value #TICK_MS} ms, the heartbeats of the members
     * whose turn it is: member k of a connection in slot k mod (interval / tick). A member heartbeats
     * once it has synced.
     */
    private void startHeartbeats(List<List<Member>> all) {
        int slots = (int) (heartbeatIntervalMs / TICK_MS);
        byConnection(all.stream().flatMap(List::stream).toList()).forEach((connection, connectionMembers) -> {
            List<List<Member>> bySlot = new ArrayList<>();
            for (int k = 0; k < connectionMembers.size(); k++) {
                if (k < slots) {
                    bySlot.add(new ArrayList<>());
                }
                bySlot.get(k % slots).add(connectionMembers.get(k));
            }
            long[] tick = {0}; // the event loop's
            tickers.add(connection.eventLoop().scheduleAtFixedRate(() -> bySlot.get((int) (tick[0]++ % bySlot.size())).forEach(this::heartbeat),
                    TICK_MS, TICK_MS, TimeUnit.MILLISECONDS));
        });
    }

    /** The members by connection, in order. */
    private static Map<KafkaConnection, List<Member>> byConnection(List<Member> members) {
        Map<KafkaConnection, List<Member>> byConnection = new LinkedHashMap<>();
        members.forEach(m -> byConnection.computeIfAbsent(m.connection, c -> new ArrayList<>()).add(m));
        return byConnection;
    }

    /**
     * The member's heartbeat, unless it has not joined or its previous one is unanswered. One
     * answered with one of {@link #REJOIN} makes it rejoin (unless it already is rejoining); all
     * but REBALANCE_IN_PROGRESS also count as errors.
     */
    private void heartbeat(Member member) {
        if (member.generation < 0) {
            return;
        }
        if (member.heartbeatInFlight) {
            late.increment();
            return;
        }
        member.heartbeatInFlight = true;
        long sent = System.nanoTime();
        int generation = member.generation;
        member.connection.send(new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId(member.group).setMemberId(member.memberId)
                .setGenerationId(generation)).build(), true).whenComplete((response, failure) -> {
                    member.heartbeatInFlight = false;
                    latencyMicros.recordValue(Math.max(0, (System.nanoTime() - sent) / 1_000));
                    Errors error = failure != null ? Errors.NETWORK_EXCEPTION : Errors.forCode(((HeartbeatResponse) response).data().errorCode());
                    if (failure == null) {
                        answered.increment();
                    }
                    if (error != Errors.NONE && error != Errors.REBALANCE_IN_PROGRESS) {
                        countError(error);
                    }
                    if (REJOIN.contains(error) && member.generation == generation) { // not rejoining already
                        rejoins.increment();
                        forget(member, error);
                        joinAndSync(member, new LongAccumulator(Math::max, 0)).whenComplete((v, e) -> {
                            if (e != null) {
                                countError(Errors.UNKNOWN_SERVER_ERROR);
                            }
                        });
                    }
                });
    }

    private void countError(Errors error) {
        errors.increment();
        errorCodes.computeIfAbsent(error, e -> new LongAdder()).increment();
    }

    private void measureHeartbeats(PrintWriter out, double idleBrokerCores, List<KafkaConnection> open)
            throws IOException, InterruptedException, ClientException {
        out.printf(Locale.ROOT, "heartbeats every %d ms; warm-up %d s%n", heartbeatIntervalMs, warmupSeconds);
        out.flush();
        for (int s = 0; s < warmupSeconds; s++) {
            Thread.sleep(1_000);
            requireConnected(open);
        }
        HeartbeatPurgatory purgatoryStart = HeartbeatPurgatory.read(stateUrl); // read outside the window: it costs the broker too
        latencyMicros.getIntervalHistogram(); // the window's latencies only
        HeartbeatWindow.Snapshot start = snapshot();
        HeartbeatWindow.Snapshot previous = start;
        for (int s = 1; s <= heartbeatSeconds; s++) {
            Thread.sleep(1_000);
            requireConnected(open);
            HeartbeatWindow.Snapshot now = snapshot();
            HeartbeatWindow second = new HeartbeatWindow(previous, now, idleBrokerCores, HeartbeatPurgatory.UNKNOWN, HeartbeatPurgatory.UNKNOWN);
            out.printf(Locale.ROOT, "%4d s  %6.0f heartbeats/s  broker %s cores%n", s, second.heartbeatsPerSecond(),
                    HeartbeatWindow.known(second.brokerCores(), "%.2f"));
            out.flush();
            previous = now;
        }
        HeartbeatWindow window = new HeartbeatWindow(start, previous, idleBrokerCores, purgatoryStart, HeartbeatPurgatory.read(stateUrl));
        Histogram latency = latencyMicros.getIntervalHistogram();
        out.println(window.describe());
        out.printf(Locale.ROOT, "heartbeat round trip: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", latency.getValueAtPercentile(50) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3);
        if (!errorCodes.isEmpty()) {
            out.println("errors since the start: " + errorCodes);
        }
    }

    /**
     * Stops the measurement once the broker has closed every connection (it died, say): the
     * seconds after would all read 0 heartbeats/s and measure nothing.
     */
    private static void requireConnected(List<KafkaConnection> open) throws ClientException {
        if (open.stream().allMatch(connection -> connection.closeFuture().isDone())) {
            throw new ClientException("lost every connection to the broker (" + open.get(0).closeFuture().getNow("closed")
                    + "); stopped");
        }
    }

    private HeartbeatWindow.Snapshot snapshot() {
        return new HeartbeatWindow.Snapshot(System.nanoTime(), answered.sum(), errors.sum(), late.sum(), rejoins.sum(), cpuNanos(ProcessHandle.current()),
                brokerPid < 0 ? -1 : ProcessHandle.of(brokerPid).map(GroupBench::cpuNanos).orElse(-1L));
    }

    /** The broker's CPU time per second over {@code seconds}, before any member joins; -1 without {@code --broker-pid}. */
    private double idleBrokerCores(PrintWriter out) throws InterruptedException {
        if (brokerPid < 0 || idleSeconds == 0) {
            return -1;
        }
        HeartbeatWindow.Snapshot before = snapshot();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        double cores = new HeartbeatWindow(before, snapshot(), -1, HeartbeatPurgatory.UNKNOWN, HeartbeatPurgatory.UNKNOWN).brokerCores();
        out.printf(Locale.ROOT, "broker idle (no members) over %d s: %s cores%n", idleSeconds, HeartbeatWindow.known(cores, "%.3f"));
        out.flush();
        return cores;
    }

    /** Every group's members leave at once (LeaveGroup with the member list), so that the next run starts on a quiet broker. */
    private static void leave(List<List<Member>> all) {
        CompletableFuture.allOf(all.stream().map(group -> group.get(0).connection.send(new LeaveGroupRequest.Builder(group.get(0).group,
                group.stream().map(m -> new MemberIdentity().setMemberId(m.memberId)).toList()).build(), true))
                .toArray(CompletableFuture[]::new)).orTimeout(ROUND_TIMEOUT_S, TimeUnit.SECONDS).join();
    }

    private static long cpuNanos(ProcessHandle process) {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }
}
