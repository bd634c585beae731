package io.purgatory.kafka.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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

    /** The module's line at first use, in a broker's log: the proof that the broker runs on it. */
    private static final Pattern MODULE_ON = Pattern.compile("purgatory-kafka \\S+ is on: .*");
    /**
     * kafka-producer-perf-test's last line (its lines every 5 s have the same start, without the percentiles): records,
     * rate, then average and maximum latency in ms, then the percentiles.
     */
    private static final Pattern PRODUCER_SUMMARY = Pattern.compile(
            "\\d+ records sent, [\\d.]+ records/sec \\([\\d.]+ MB/sec\\), ([\\d.]+) ms avg latency, ([\\d.]+) ms max latency, \\d+ ms 50th.*");
    /** A producer metric as {@code --print-metrics} prints it: {@code producer-metrics:NAME:{client-id=...} : VALUE}. */
    private static final Pattern PRODUCER_METRIC = Pattern.compile("producer-metrics:([\\w-]+):\\{[^}]*}\\s*:\\s*([\\d.E-]+)");

    @Option(names = "--records", description = "Records the producer sends.")
    private int records = 100_000;

    @Option(names = "--throughput", description = "Records per second the producer sends (-1: as fast as it can). "
            + "The default is what three brokers and the two tools sustain on 2 cores; above what the machine sustains, records "
            + "queue in the producer and its latency is mostly that queue.")
    private int throughput = 5_000;

    @Option(names = "--record-size", description = "Bytes per record.")
    private int recordSize = 512;

    @Option(names = "--stock", description = "Run stock Kafka instead (no purgatory-kafka): our MBeans are then absent.")
    private boolean stock;

    @Option(names = "--broker-classpath", description = "Kafka 4.4.0's classpath file.")
    private Path brokerClasspath = Path.of("kafka-brokers/4.4.0/target/broker.classpath");

    @Option(names = "--module-jar", description = "The purgatory-kafka jar.")
    private Path moduleJar = Path.of("purgatory-kafka/kafka-4.4/target/purgatory-kafka-4.4-1.0.0-SNAPSHOT.jar");

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
            printModuleLines(cluster);
            cluster.createTopic(TOPIC, 6, 3, Map.of("min.insync.replicas", "2"));
            System.out.printf("== kafka-consumer-perf-test and kafka-producer-perf-test (acks=all): %,d records of %d bytes, %s%n",
                    records, recordSize, throughput < 0 ? "as fast as the producer can" : "at " + throughput + " records/s");
            List<Process> tools = new ArrayList<>();
            Process consumer = tool(tools, runtime, ProcessBuilder.Redirect.INHERIT, "org.apache.kafka.tools.ConsumerPerformance",
                    "--bootstrap-server", cluster.bootstrapServers(), "--topic", TOPIC, "--num-records", Integer.toString(records),
                    "--timeout", "120000", "--command-property", "fetch.max.wait.ms=500");
            Process producer = tool(tools, runtime, ProcessBuilder.Redirect.PIPE, "org.apache.kafka.tools.ProducerPerformance",
                    "--bootstrap-server", cluster.bootstrapServers(), "--topic", TOPIC,
                    "--num-records", Integer.toString(records), "--record-size", Integer.toString(recordSize),
                    "--throughput", Integer.toString(throughput), "--command-property", "acks=all", "--print-metrics");
            int producerExit;
            boolean consumerDone;
            Optional<String> reading;
            try {
                reading = echoProducer(producer);
                producerExit = producer.waitFor();
                consumerDone = consumer.waitFor(2, TimeUnit.MINUTES);
            } finally {
                for (Process tool : tools) {
                    tool.destroyForcibly().waitFor();
                }
            }
            reading.ifPresent(System.out::println);
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

    /** The module's line at first use, from each broker's log: what says that the broker runs on it. */
    private static void printModuleLines(KafkaCluster cluster) throws IOException {
        for (KafkaNode node : cluster.nodes()) {
            try (Stream<String> lines = Files.lines(node.logFile(), StandardCharsets.UTF_8)) {
                Optional<String> on = lines.map(MODULE_ON::matcher).filter(Matcher::find).map(Matcher::group).findFirst();
                System.out.printf("   broker %d: %s%n", node.id(), on.orElse("no line from purgatory-kafka in " + node.logFile()));
            }
        }
    }

    /**
     * Echoes the producer's lines up to its summary and keeps the metrics it prints after it ({@code --print-metrics}, a
     * table of hundreds of lines) to itself; returns a reading of its average latency: how much of it the records waited
     * in the producer, and how much a request took at the brokers, where acks=all waits in the Produce purgatory.
     */
    private static Optional<String> echoProducer(Process producer) {
        String summary = null;
        Map<String, Double> metrics = new TreeMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(producer.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                Matcher metric = PRODUCER_METRIC.matcher(line);
                if (metric.find()) {
                    metrics.putIfAbsent(metric.group(1), Double.parseDouble(metric.group(2)));
                } else if (summary == null) {
                    System.out.println(line);
                    summary = PRODUCER_SUMMARY.matcher(line).matches() ? line : null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading kafka-producer-perf-test's output", e);
        }
        Double queued = metrics.get("record-queue-time-avg");
        Double request = metrics.get("request-latency-avg");
        if (summary == null || queued == null || request == null) {
            return Optional.empty();
        }
        Matcher figures = PRODUCER_SUMMARY.matcher(summary);
        figures.matches();
        return Optional.of(String.format(Locale.ROOT, "== reading the producer's latency: %s ms on average from send() to its ack, of which"
                        + " %.1f ms queued in the producer (record-queue-time-avg) and %.1f ms per request at the brokers"
                        + " (request-latency-avg, which includes the wait for acks=all in the Produce purgatory).%n"
                        + "   Time queued in the producer is time its records waited to be sent (its first seconds, while it learns"
                        + " the partitions' leaders, or a --throughput the machine cannot keep), not time in the brokers.",
                figures.group(1), queued, request));
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
                List<ObjectName> names = jmx.names(KafkaCluster.OUR_PURGATORIES).stream().toList();
                for (ObjectName name : names) {
                    String kafkaName = purgatoryOf(name);
                    // a combined node opens some purgatories once per role (AlterAcls): one row sums both
                    boolean perRole = names.stream().filter(other -> purgatoryOf(other).equals(kafkaName)).count() > 1;
                    String purgatory = perRole ? kafkaName + " (both roles)" : kafkaName;
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

    /**
     * A purgatory's name as Kafka names it, from our MBean's {@code <purgatory>-broker<id>}, with {@code -2} for a second
     * purgatory of that name in one JVM.
     */
    private static String purgatoryOf(ObjectName name) {
        return name.getKeyProperty("name").replace("\"", "").replaceAll("-broker\\d+(-\\d+)?$", "");
    }

    /** Runs one of Kafka's tools in a JVM of the brokers' runtime, its errors on this console and its output as {@code out} says. */
    private static Process tool(List<Process> started, KafkaRuntime runtime, ProcessBuilder.Redirect out, String mainClass,
                                String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", runtime.classpath(), mainClass));
        command.addAll(List.of(arguments));
        Process tool = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT).redirectOutput(out)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        started.add(tool);
        return tool;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
