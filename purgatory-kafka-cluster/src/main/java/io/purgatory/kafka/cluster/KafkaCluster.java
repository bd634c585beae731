package io.purgatory.kafka.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A real Apache Kafka cluster in KRaft mode on loopback: {@link ClusterSpec#nodes()} child JVMs, each a broker
 * and a voter of the controller quorum, with storage formatted by Kafka's own {@code StorageTool}, on stock
 * Kafka or with purgatory-kafka first on each broker's classpath ({@link KafkaRuntime}).
 *
 * <p>Waits use Kafka's own signals: the cluster is up when its metadata lists every broker, a topic is ready
 * when every partition has a leader and a full ISR. Nothing sleeps.
 *
 * <p>Contract: no JVM this cluster started outlives it. {@link #close()} kills every node by its PID; a start
 * that fails (a node that exits, a timeout) kills the nodes already started before it throws; and a JVM
 * shutdown hook does the same if the owner never closes it (a test JVM ended on a timeout, say).
 *
 * <p>Thread-safe: the nodes are thread-safe and the node list is fixed at start; {@link Admin} is thread-safe.
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration TOPIC_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final int PORT_ATTEMPTS = 3;
    /** purgatory-kafka's MBeans, one per purgatory, on a broker that runs it. */
    public static final String OUR_PURGATORIES = "io.purgatory:type=DelayedOperationPurgatory,*";
    /**
     * The thread of purgatory-kafka's timer under Kafka's Fetch purgatory: on Kafka 3.9, whose purgatory is Kafka's own
     * (Scala) and whose jar replaces the timer alone, the sign that the module runs (Kafka's timer names its one
     * thread {@code executor-Fetch}).
     */
    public static final String OUR_FETCH_TIMER_THREAD = "executor-Fetch-reaper";

    private final ClusterSpec spec;
    private final List<KafkaNode> nodes;
    private final Thread killOnExit;
    private final Admin admin;

    private KafkaCluster(ClusterSpec spec, List<KafkaNode> nodes, Thread killOnExit) {
        this.spec = spec;
        this.nodes = List.copyOf(nodes);
        this.killOnExit = killOnExit;
        this.admin = Admin.create(adminConfig(bootstrapServers(this.nodes)));
    }

    /**
     * Clears the spec's directory of a previous run, formats and starts the cluster, and waits until its
     * metadata lists every broker. A start whose node finds one of its ports taken (free ports are picked here
     * and bound by the node seconds later; another process may take one meanwhile) is tried again on new ports,
     * up to {@value #PORT_ATTEMPTS} times in all.
     *
     * @throws IllegalStateException if a node exits while starting, or the cluster is not up within three
     *     minutes; every node started is killed by then, and the message names the node and its log
     */
    public static KafkaCluster start(ClusterSpec spec) {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnFreePorts(spec);
            } catch (PortTakenException e) {
                if (attempt == PORT_ATTEMPTS) {
                    throw new IllegalStateException(e.getMessage() + " (" + PORT_ATTEMPTS + " attempts)", e);
                }
            }
        }
    }

    private static KafkaCluster startOnFreePorts(ClusterSpec spec) {
        clear(spec.directory());
        Path log4jConfig = writeLog4jConfig(spec.directory());
        List<NodePorts> ports = NodePorts.allocate(spec.nodes());
        List<KafkaNode> nodes = new ArrayList<>();
        for (int id = 0; id < spec.nodes(); id++) {
            nodes.add(new KafkaNode(id, ports.get(id), spec.directory().resolve("node-" + id), log4jConfig, spec));
        }
        String voters = nodes.stream()
                .map(node -> node.id() + "@127.0.0.1:" + node.ports().controller())
                .collect(Collectors.joining(","));
        nodes.forEach(node -> node.writeConfig(voters, spec));
        formatAll(nodes, Uuid.randomUuid().toString());

        Thread killOnExit = new Thread(() -> nodes.forEach(KafkaNode::kill), "kafka-cluster-kill-on-exit");
        Runtime.getRuntime().addShutdownHook(killOnExit);
        KafkaCluster cluster = new KafkaCluster(spec, nodes, killOnExit);
        try {
            nodes.forEach(KafkaNode::start);
            cluster.awaitBrokers(nodes, START_TIMEOUT);
            if (spec.runtime().onModule()) {
                cluster.checkModuleLoaded();
            }
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** What this cluster was started with. */
    public ClusterSpec spec() {
        return spec;
    }

    /** The nodes, by id. */
    public List<KafkaNode> nodes() {
        return nodes;
    }

    /** Node {@code id}. */
    public KafkaNode node(int id) {
        return nodes.get(id);
    }

    /** Every node's broker address, comma separated, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers(nodes);
    }

    /** An admin client of this cluster, closed with it. */
    public Admin admin() {
        return admin;
    }

    /**
     * Starts a node again (after {@link KafkaNode#kill()}, say) on its own storage and ports, and waits until
     * the cluster's metadata lists it.
     */
    public void restart(KafkaNode node) {
        node.start();
        awaitBrokers(List.of(node), START_TIMEOUT);
    }

    /**
     * Creates a topic and waits until every partition has a leader and all {@code replicationFactor} replicas
     * in its ISR.
     */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        NewTopic topic = new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
        get(admin.createTopics(List.of(topic)).all(), "create topic " + name);
        awaitFullIsr(name);
    }

    /** Waits until every partition of {@code topic} has a leader and all its replicas in the ISR. */
    public void awaitFullIsr(String topic) {
        await("every partition of " + topic + " has a leader and a full ISR")
                .atMost(TOPIC_TIMEOUT).pollInterval(POLL).ignoreExceptions()
                .until(() -> describe(topic).partitions().stream()
                        .allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size()));
    }

    /** The topic as the cluster's metadata has it now. */
    public TopicDescription describe(String topic) {
        return get(admin.describeTopics(List.of(topic)).allTopicNames(), "describe " + topic).get(topic);
    }

    /** Partition {@code partition} of {@code topic} as the metadata has it now. */
    public TopicPartitionInfo partition(String topic, int partition) {
        return describe(topic).partitions().get(partition);
    }

    /** A JMX connection to a node's JVM; the caller closes it. */
    public NodeJmx jmx(KafkaNode node) {
        return NodeJmx.connect(node);
    }

    /**
     * Shuts the cluster down cleanly: SIGTERM (as {@code kafka-server-stop.sh} sends) to one node at a time, in id
     * order, each after the one before has exited.
     *
     * <p>Why in turn and not at once: a node's broker finishes its controlled shutdown only when the active
     * controller approves it, and that needs a quorum of the controller voters, which are these same nodes; each
     * node's controller leaves right after its own broker. Stopped all at once, two nodes can leave before the third
     * is approved, and that broker then waits for Kafka's controlled-shutdown deadline (5 minutes) on a quorum that
     * is gone. In turn, every node whose controlled shutdown needs a quorum has one: its own controller and those
     * of the nodes still running. The nodes stopped when fewer than a quorum are left (the last of three) run with
     * {@code controlled.shutdown.enable=false} ({@link ClusterSpec#stopsWithoutQuorum}): no controller can approve
     * them, and no broker is left to take their leaders; they shut down as cleanly otherwise (logs flushed, clean
     * shutdown marker). Kafka's own system tests face the same rule and SIGKILL such nodes instead.
     *
     * @param timeout how long each node may take from its SIGTERM to its exit
     * @return each node's time from its SIGTERM to its exit, or {@code null} for a node still running at its
     *     timeout (it is left running; {@link #close()} kills it), in id order
     */
    public Map<Integer, Duration> shutdown(Duration timeout) throws InterruptedException {
        Map<Integer, Duration> times = new LinkedHashMap<>();
        for (KafkaNode node : nodes) {
            long start = System.nanoTime();
            CompletableFuture<Duration> exit = node.onExit().thenApply(exited -> Duration.ofNanos(System.nanoTime() - start));
            node.terminate();
            try {
                times.put(node.id(), exit.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                times.put(node.id(), null);
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for node " + node.id() + " to exit failed", e.getCause());
            }
        }
        return times;
    }

    /** The last {@code lines} lines of every node's log, each under its file name, for a failure message. */
    public String logTails(int lines) {
        StringBuilder text = new StringBuilder();
        for (KafkaNode node : nodes) {
            text.append(System.lineSeparator()).append("==== ").append(node.logFile()).append(" (last ").append(lines)
                    .append(" lines)").append(System.lineSeparator()).append(node.logTail(lines));
        }
        return text.toString();
    }

    /** Kills every node by its PID and waits for each to be gone. Idempotent. */
    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
        nodes.forEach(KafkaNode::kill);
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs, and finds nothing left to kill
        }
    }

    /**
     * A module run whose brokers do not serve our MBeans runs Kafka's own purgatory: say so rather than measure it. On
     * Kafka 3.x, whose jar replaces the timer alone, our timer's thread under the Fetch purgatory is the sign instead.
     */
    private void checkModuleLoaded() {
        boolean timerOnly = spec.runtime().kafkaVersion().startsWith("3.");
        for (KafkaNode node : nodes) {
            try (NodeJmx jmx = jmx(node)) {
                if (timerOnly && !jmx.threadNames().contains(OUR_FETCH_TIMER_THREAD)) {
                    throw new IllegalStateException("node " + node.id() + " runs without purgatory-kafka's timer (no thread "
                            + OUR_FETCH_TIMER_THREAD + ") although " + spec.runtime().moduleJar().orElseThrow() + " is first on its classpath");
                }
                if (!timerOnly && jmx.names(OUR_PURGATORIES).isEmpty()) {
                    throw new IllegalStateException("node " + node.id() + " runs without purgatory-kafka (no " + OUR_PURGATORIES
                            + " MBean) although " + spec.runtime().moduleJar().orElseThrow() + " is first on its classpath");
                }
            }
        }
    }

    private void awaitBrokers(Collection<KafkaNode> expected, Duration timeout) {
        Set<Integer> ids = expected.stream().map(KafkaNode::id).collect(Collectors.toSet());
        await("brokers " + ids + " listed in the cluster's metadata")
                .atMost(timeout).pollInterval(POLL)
                .until(() -> {
                    for (KafkaNode node : nodes) {
                        if (ids.contains(node.id()) && !node.isAlive()) {
                            String tail = node.logTail(40);
                            if (tail.contains("java.net.BindException")) {
                                throw new PortTakenException("node " + node.id() + " found a port taken: " + node.ports());
                            }
                            throw new IllegalStateException("node " + node.id() + " exited with " + node.exitCode().orElse(-1)
                                    + " while starting; its log, " + node.logFile() + ":" + System.lineSeparator()
                                    + tail);
                        }
                    }
                    return listedBrokers().containsAll(ids);
                });
    }

    private Set<Integer> listedBrokers() {
        try {
            return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
        } catch (ExecutionException | TimeoutException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void formatAll(List<KafkaNode> nodes, String clusterId) {
        List<CompletableFuture<Void>> formats = nodes.stream()
                .map(node -> CompletableFuture.runAsync(() -> node.format(clusterId)))
                .toList();
        get(CompletableFuture.allOf(formats.toArray(CompletableFuture[]::new)), "format the nodes' storage");
    }

    private static void clear(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + directory + " of a previous run", e);
        }
    }

    private static Path writeLog4jConfig(Path directory) {
        Path file = directory.resolve("log4j2.properties");
        try (InputStream in = KafkaCluster.class.getResourceAsStream("log4j2.properties")) {
            if (in == null) {
                throw new IllegalStateException("log4j2.properties missing beside " + KafkaCluster.class.getName());
            }
            Files.createDirectories(directory);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static String bootstrapServers(List<KafkaNode> nodes) {
        return nodes.stream().map(KafkaNode::bootstrapAddress).collect(Collectors.joining(","));
    }

    private static Properties adminConfig(String bootstrapServers) {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        return config;
    }

    /** A node could not bind one of its ports: another process took it after it was picked. */
    private static final class PortTakenException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    private static <T> T get(java.util.concurrent.Future<T> future, String what) {
        try {
            return future.get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new IllegalStateException("cannot " + what + ": " + cause, cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + " within " + TOPIC_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + what, e);
        }
    }
}
