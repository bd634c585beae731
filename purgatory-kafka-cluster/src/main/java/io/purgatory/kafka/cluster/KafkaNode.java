package io.purgatory.kafka.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * One KRaft node of a {@link KafkaCluster}, a broker and a controller quorum voter in one child JVM
 * ({@code kafka.Kafka server.properties}) on loopback: its config, data directory and log file live in its own
 * directory, and its JVM is known by its PID, so that it can be stopped, resumed, killed and restarted.
 *
 * <p>Contract: the node never outlives the {@link KafkaCluster} that started it: {@link #kill()} ends the JVM
 * by its PID and waits for it, and the cluster calls it on close, on a failed start and from a shutdown hook.
 * The log file keeps everything the node printed across restarts.
 *
 * <p>Thread-safe: the process is guarded by this node's monitor, so that a test thread, the fixture and a
 * shutdown hook can each act on it.
 */
public final class KafkaNode {

    private static final String KAFKA_MAIN = "kafka.Kafka";
    private static final String STORAGE_TOOL = "kafka.tools.StorageTool";
    private static final Duration FORMAT_TIMEOUT = Duration.ofMinutes(2);

    private final int id;
    private final NodePorts ports;
    private final Path directory;
    private final Path config;
    private final Path log;
    private final Path log4jConfig;
    private final KafkaRuntime runtime;
    private final int maxHeapMb;

    @GuardedBy("this")
    private Process process;

    KafkaNode(int id, NodePorts ports, Path directory, Path log4jConfig, ClusterSpec spec) {
        this.id = id;
        this.ports = ports;
        this.directory = directory;
        this.config = directory.resolve("server.properties");
        this.log = directory.resolve("node-" + id + ".log");
        this.log4jConfig = log4jConfig;
        this.runtime = spec.runtime();
        this.maxHeapMb = spec.maxHeapMb();
    }

    /** The node id, also its broker id. */
    public int id() {
        return id;
    }

    /** The node's ports. */
    public NodePorts ports() {
        return ports;
    }

    /** {@code 127.0.0.1:<broker port>}. */
    public String bootstrapAddress() {
        return "127.0.0.1:" + ports.broker();
    }

    /** The file the node's JVM writes its output to (Kafka's log4j console appender). */
    public Path logFile() {
        return log;
    }

    /** The PID of the node's JVM, if one was started and has not been waited for after its exit. */
    public synchronized Optional<Long> pid() {
        return process == null ? Optional.empty() : Optional.of(process.pid());
    }

    /** True while the node's JVM runs (also while it is stopped with SIGSTOP). */
    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The exit code of the node's JVM, once it has exited. */
    public synchronized Optional<Integer> exitCode() {
        return process == null || process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    void writeConfig(String quorumVoters, ClusterSpec spec) {
        Properties properties = new Properties();
        properties.setProperty("process.roles", "broker,controller");
        properties.setProperty("node.id", Integer.toString(id));
        properties.setProperty("controller.quorum.voters", quorumVoters);
        properties.setProperty("listeners",
                "PLAINTEXT://127.0.0.1:" + ports.broker() + ",CONTROLLER://127.0.0.1:" + ports.controller());
        properties.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + ports.broker());
        properties.setProperty("controller.listener.names", "CONTROLLER");
        properties.setProperty("inter.broker.listener.name", "PLAINTEXT");
        properties.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        properties.setProperty("log.dirs", directory.resolve("data").toString());
        String replication = Integer.toString(spec.internalReplicationFactor());
        String minIsr = Integer.toString(Math.min(2, spec.internalReplicationFactor()));
        properties.setProperty("offsets.topic.replication.factor", replication);
        properties.setProperty("transaction.state.log.replication.factor", replication);
        properties.setProperty("transaction.state.log.min.isr", minIsr);
        properties.setProperty("share.coordinator.state.topic.replication.factor", replication);
        properties.setProperty("share.coordinator.state.topic.min.isr", minIsr);
        ClusterSpec.BROKER_DEFAULTS.forEach(properties::setProperty);
        if (spec.stopsWithoutQuorum(id)) {
            properties.setProperty("controlled.shutdown.enable", "false");
        }
        spec.brokerProperties().forEach(properties::setProperty);
        spec.nodeProperties(id).forEach(properties::setProperty);
        try {
            Files.createDirectories(directory);
            try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                properties.store(out, "KRaft node " + id + " of a purgatory test cluster");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
    }

    /**
     * Formats the node's storage with Kafka's own {@code StorageTool}, in a JVM of the node's runtime.
     *
     * @throws IllegalStateException if the tool fails or takes longer than two minutes; its output is in the log
     */
    void format(String clusterId) {
        List<String> command = javaCommand(STORAGE_TOOL, List.of("-Xmx256m"));
        command.addAll(List.of("format", "-t", clusterId, "-c", config.toString()));
        Process tool = launch(command);
        try {
            if (!tool.waitFor(FORMAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                tool.destroyForcibly().waitFor();
                throw new IllegalStateException("node " + id + ": StorageTool format did not finish within " + FORMAT_TIMEOUT
                        + "; see " + log);
            }
        } catch (InterruptedException e) {
            tool.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting node " + id, e);
        }
        if (tool.exitValue() != 0) {
            throw new IllegalStateException("node " + id + ": StorageTool format exited with " + tool.exitValue() + "; see " + log);
        }
    }

    /**
     * Starts the node's JVM. It serves once the cluster's metadata lists it (see {@link KafkaCluster}).
     *
     * @throws IllegalStateException if its JVM still runs
     */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node " + id + " already runs as PID " + process.pid());
        }
        process = launch(javaCommand(KAFKA_MAIN, jvmOptions()));
    }

    /** Sends a POSIX signal ({@code STOP}, {@code CONT}, {@code TERM}, {@code KILL}) to the node's JVM. */
    public synchronized void signal(String name) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("node " + id + " does not run");
        }
        Signals.send(process.pid(), name);
    }

    /** Asks the node's JVM to shut down cleanly: SIGTERM, as {@code kafka-server-stop.sh} sends. */
    public synchronized void terminate() {
        if (process != null && process.isAlive()) {
            process.destroy();
        }
    }

    /** The node's JVM's exit, for a caller that waits on several at once; completed already if none runs. */
    synchronized java.util.concurrent.CompletableFuture<Process> onExit() {
        return process == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : process.onExit();
    }

    /**
     * Ends the node's JVM with SIGKILL, by its PID, and waits for it to be gone. Does nothing if it does not run.
     */
    public synchronized void kill() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for the node's JVM to exit.
     *
     * @return true if it exited within the timeout
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        Process current;
        synchronized (this) {
            current = process;
        }
        return current == null || current.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The last {@code lines} lines of the node's log, for a failure message. */
    public String logTail(int lines) {
        try {
            if (!Files.exists(log)) {
                return "(no log at " + log + ")";
            }
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    private List<String> jvmOptions() {
        return List.of(
                "-Xms128m", "-Xmx" + maxHeapMb + "m",
                // 2 cores for three brokers and their clients: one GC thread, two JIT threads
                "-XX:+UseSerialGC", "-XX:CICompilerCount=2",
                "-XX:+ExitOnOutOfMemoryError",
                "-Dcom.sun.management.jmxremote",
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Dcom.sun.management.jmxremote.port=" + ports.jmx(),
                "-Dcom.sun.management.jmxremote.rmi.port=" + ports.jmx(),
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false",
                "-Djava.rmi.server.hostname=127.0.0.1");
    }

    private List<String> javaCommand(String mainClass, List<String> jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Djava.awt.headless=true");
        command.add("-Dlog4j2.configurationFile=" + log4jConfig);
        command.add("-Dkafka.logs.dir=" + directory);
        command.add("-cp");
        command.add(runtime.classpath());
        command.add(mainClass);
        if (mainClass.equals(KAFKA_MAIN)) {
            command.add(config.toString());
        }
        return command;
    }

    private Process launch(List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> environment = builder.environment();
        environment.remove("CLASSPATH");
        environment.remove("JAVA_TOOL_OPTIONS");
        try {
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JVM for node " + id + ": " + String.join(" ", command.subList(0, 1)), e);
        }
    }
}
