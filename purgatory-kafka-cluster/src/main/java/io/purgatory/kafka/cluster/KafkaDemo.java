package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Kafka demonstration: three real Kafka 4.4.0 brokers on loopback with purgatory-kafka first on their
 * classpath, Kafka's own {@code kafka-producer-perf-test} (acks=all) and {@code kafka-consumer-perf-test} against
 * them at once, then what Kafka's purgatories did, as our MBeans on each broker show it, and a clean stop.
 * {@code demo-kafka.sh} builds and runs it.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "demo-kafka", sortOptions = false, showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Starts three Kafka 4.4.0 brokers (KRaft, on loopback) with the purgatory-kafka jar first on their classpath, "
                    + "runs Kafka's kafka-producer-perf-test (acks=all) and kafka-consumer-perf-test against a topic of "
                    + "6 partitions (replication factor 3, min.insync.replicas 2), prints purgatory-kafka's MBeans for "
                    + "Kafka's purgatories on every broker, and stops the brokers.",
            ""})
public final class KafkaDemo implements Callable<Integer> {

    private static final String TOPIC = "demo";
    /** Our MBean's attributes summed over the brokers: parked now, watched now, and the counts so far. */
    private static final List<String> SUMMED = List.of("Delayed", "Watched", "Completed", "Expired", "Purged");
    /** Our MBean's expiry lateness, the worst broker's. */
    private static final List<String> MAXED = List.of("ExpiryLatenessP50Ms", "ExpiryLatenessP99Ms", "ExpiryLatenessMaxMs");

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--records", description = "Records the producer sends.")
    private int records = 200_000;

    @Option(names = "--throughput", description = "Records per second the producer sends (-1: as fast as it can).")
    private int throughput = 20_000;

    @Option(names = "--record-size", description = "Bytes per record.")
    private int recordSize = 512;

    @Option(names = "--stock", description = "Run stock Kafka instead (no purgatory-kafka): our MBeans are then absent.")
    private boolean stock;

    @Option(names = "--broker-classpath", description = "Kafka 4.4.0's classpath file.")
    private Path brokerClasspath = Path.of("kafka-brokers/4.4.0/target/broker.classpath");

    @Option(names = "--module-jar", description = "The purgatory-kafka jar.")
    private Path moduleJar = Path.of("purgatory-kafka/kafka-4.4/target/purgatory-kafka-4.4-0.1.0-SNAPSHOT.jar");

    @Option(names = "--work-dir", description = "Where the brokers keep their data and logs (cleared first).")
    private Path workDir = Path.of("target/demo-kafka");

    public static void main(String[] args) {
        CommandLine line = new CommandLine(new KafkaDemo());
        line.setParameterExceptionHandler((e, arguments) -> {
            line.getErr().println("demo-kafka: " + e.getMessage() + " (--help lists the options)");
            return 2;
        });
        System.exit(line.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (records < 1 || recordSize < 1 || throughput == 0 || throughput < -1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--records and --record-size must be at least 1, --throughput at least 1 or -1");
        }
        KafkaRuntime runtime;
        try {
            runtime = stock ? KafkaRuntime.stock("4.4.0", brokerClasspath) : KafkaRuntime.stock("4.4.0", brokerClasspath).withModule(moduleJar);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage(), e);
        }
        long started = System.nanoTime();
        System.out.printf("== starting 3 Kafka 4.4.0 brokers (%s), files and logs in %s%n",
                stock ? "stock" : "purgatory-kafka first on the classpath: " + moduleJar, workDir);
        try (KafkaCluster cluster = KafkaCluster.start(ClusterSpec.threeNodes(runtime, workDir))) {
            System.out.printf("== up in %.0f s at %s%n", seconds(started), cluster.bootstrapServers());
            cluster.createTopic(TOPIC, 6, 3, Map.of("min.insync.replicas", "2"));
            System.out.printf("== kafka-consumer-perf-test and kafka-producer-perf-test (acks=all): %,d records of %d bytes, %s%n",
                    records, recordSize, throughput < 0 ? "as fast as the producer can" : "at " + throughput + " records/s");
            List<Process> tools = new ArrayList<>();
            Process consumer = tool(tools, runtime, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", cluster.bootstrapServers(),
                    "--topic", TOPIC, "--messages", Integer.toString(records), "--timeout", "120000",
                    "--command-property", "fetch.max.wait.ms=500");
            Process producer = tool(tools, runtime, "org.apache.kafka.tools.ProducerPerformance", "--topic", TOPIC,
                    "--num-records", Integer.toString(records), "--record-size", Integer.toString(recordSize),
                    "--throughput", Integer.toString(throughput),
                    "--producer-props", "bootstrap.servers=" + cluster.bootstrapServers(), "acks=all");
            int producerExit;
            boolean consumerDone;
            try {
                producerExit = producer.waitFor();
                consumerDone = consumer.waitFor(2, TimeUnit.MINUTES);
            } finally {
                for (Process tool : tools) {
                    tool.destroyForcibly().waitFor();
                }
            }
            printOurMetrics(cluster);
            System.out.println("== stopping the brokers (SIGTERM, as kafka-server-stop.sh)");
            Map<Integer, Duration> exits = cluster.shutdown(Duration.ofMinutes(1));
            exits.forEach((node, took) -> System.out.printf("   broker %d: %s%n", node, took == null
                    ? "still running 60 s after its SIGTERM, killed"
                    : String.format(Locale.ROOT, "exited after %.1f s", took.toMillis() / 1000.0)));
            System.out.printf("== done in %.0f s%n", seconds(started));
            return producerExit == 0 && consumerDone && consumer.exitValue() == 0 ? 0 : 1;
        }
    }

    /**
     * One line per purgatory, summed over the brokers (the lateness figures: the worst broker's), from our
     * {@code PurgatoryMetricsMBean} attributes.
     */
    private static void printOurMetrics(KafkaCluster cluster) {
        System.out.println("== purgatory-kafka's MBeans (" + KafkaCluster.OUR_PURGATORIES + ") for Kafka's purgatories, over the 3 brokers");
        Map<String, long[]> byPurgatory = new TreeMap<>();
        for (KafkaNode node : cluster.nodes()) {
            try (NodeJmx jmx = cluster.jmx(node)) {
                for (ObjectName name : jmx.names(KafkaCluster.OUR_PURGATORIES)) {
                    String purgatory = name.getKeyProperty("name").replace("\"", "").replaceAll("-broker\\d+$", "");
                    long[] sums = byPurgatory.computeIfAbsent(purgatory, k -> new long[SUMMED.size() + MAXED.size()]);
                    for (int i = 0; i < SUMMED.size(); i++) {
                        sums[i] += ((Number) jmx.attribute(name, SUMMED.get(i))).longValue();
                    }
                    for (int i = 0; i < MAXED.size(); i++) {
                        int at = SUMMED.size() + i;
                        sums[at] = Math.max(sums[at], ((Number) jmx.attribute(name, MAXED.get(i))).longValue());
                    }
                }
            }
        }
        if (byPurgatory.isEmpty()) {
            System.out.println("   none: stock Kafka");
            return;
        }
        System.out.printf("   %-22s %9s %9s %11s %9s %9s   %s%n", "purgatory", "parked", "watched", "completed", "expired", "purged",
                "expiry lateness p50/p99/max ms");
        byPurgatory.forEach((purgatory, v) -> System.out.printf(Locale.ROOT, "   %-22s %,9d %,9d %,11d %,9d %,9d   %d/%d/%d%n",
                purgatory, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]));
    }

    /** Runs one of Kafka's tools in a JVM of the brokers' runtime, its output on this console. */
    private static Process tool(List<Process> started, KafkaRuntime runtime, String mainClass, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", runtime.classpath(), mainClass));
        command.addAll(List.of(arguments));
        Process tool = new ProcessBuilder(command).inheritIO().start();
        started.add(tool);
        return tool;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
