package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.ClusterSpec;
import io.purgatory.kafka.cluster.KafkaCluster;
import io.purgatory.kafka.cluster.KafkaRuntime;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cluster benchmark: a real three-broker Kafka 4.4.0 cluster on stock Kafka against the same cluster with
 * purgatory-kafka first on each broker's classpath, a fresh cluster per round, the runtimes alternated round by
 * round. See {@code --help} and docs/benchmarks.md section 11.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "cluster-bench", sortOptions = false, showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Starts three Kafka 4.4.0 brokers (KRaft, child JVMs on loopback) per round, on stock Kafka or with the "
                    + "purgatory-kafka jar first on each broker's classpath, alternating the runtimes round by round, and "
                    + "drives acks=all idempotent produce at a topic of --partitions partitions (replication factor 3, "
                    + "min.insync.replicas 2). Prints per round: records acked, broker CPU (all three brokers' process CPU "
                    + "over the measured period, from JMX) per record and per produce request, produce latency "
                    + "p50/p99/p99.9 (from the record's scheduled send time to its ack), Kafka's purgatory sizes at the "
                    + "end of the period and the brokers' heap after a full GC; then the medians per runtime and their "
                    + "ratio module/stock.",
            "",
            "Modes:",
            "  RATE    produce at --rate records/s.",
            "  MAX     produce as fast as the producer's buffer lets it (the most the cluster takes).",
            "  PARKED  RATE, with --consumers consumers long-polling the topic's partitions (fetch.min.bytes 1 MiB,",
            "          fetch.max.wait.ms 500), so that Kafka's fetch purgatory holds about that many fetches.",
            ""},
        footer = {
            "",
            "Example (java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.kafka.ClusterBench ...):",
            "  --mode RATE --rate 2000 --rounds 3 --latency-csv docs/benchmarks/results/cluster-latency.csv"})
public final class ClusterBench implements Callable<Integer> {

    /** What a round drives. */
    enum Mode { RATE, MAX, PARKED }

    /** Which broker classpath a round runs. */
    enum Runtime { STOCK, MODULE }

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--mode", description = "RATE, MAX or PARKED.")
    private Mode mode = Mode.RATE;

    @Option(names = "--runtimes", split = ",", description = "The runtimes, alternated in this order each round.")
    private List<Runtime> runtimes = List.of(Runtime.STOCK, Runtime.MODULE);

    @Option(names = "--rounds", description = "Rounds per runtime.")
    private int rounds = 3;

    @Option(names = "--rate", description = "Records per second (RATE, PARKED).")
    private int rate = 2_000;

    @Option(names = "--warmup", description = "Seconds of load before the measured period.")
    private int warmupSeconds = 10;

    @Option(names = "--duration", description = "Seconds measured.")
    private int durationSeconds = 30;

    @Option(names = "--record-size", description = "Bytes per record value.")
    private int recordSize = 512;

    @Option(names = "--partitions", description = "Partitions of the topic.")
    private int partitions = 6;

    @Option(names = "--consumers", description = "Long-polling consumers (PARKED).")
    private int consumers = 1_000;

    @Option(names = "--broker-heap-mb", description = "Each broker's -Xmx.")
    private int brokerHeapMb = 512;

    @Option(names = "--broker-classpath", description = "Kafka 4.4.0's classpath file (mvn -B -q -pl kafka-brokers/4.4.0 generate-resources).")
    private Path brokerClasspath = Path.of("kafka-brokers/4.4.0/target/broker.classpath");

    @Option(names = "--module-jar", description = "The purgatory-kafka jar (mvn -B -q -pl purgatory-kafka -am package -DskipTests).")
    private Path moduleJar = Path.of("purgatory-kafka/target/purgatory-kafka-0.1.0-SNAPSHOT.jar");

    @Option(names = "--work-dir", description = "Where the rounds' brokers keep their files and logs.")
    private Path workDir = Path.of("target/cluster-bench");

    @Option(names = "--csv", description = "Append one line per round to this CSV file (header written if new).")
    private Path csv;

    @Option(names = "--latency-csv", description = "Append each round's latency distribution (runtime, one_in, latency_ms) to this CSV,"
            + " for the chart step: CsvChart --x one_in --y latency_ms --series runtime.")
    private Path latencyCsv;

    public static void main(String[] args) {
        CommandLine line = new CommandLine(new ClusterBench()).setCaseInsensitiveEnumValuesAllowed(true);
        line.setParameterExceptionHandler((e, arguments) -> {
            line.getErr().println("cluster-bench: " + e.getMessage() + " (--help lists the options)");
            return 2;
        });
        System.exit(line.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        validate();
        KafkaRuntime stock;
        KafkaRuntime module;
        try {
            stock = KafkaRuntime.stock("4.4.0", brokerClasspath);
            module = runtimes.contains(Runtime.MODULE) ? stock.withModule(moduleJar) : null;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage(), e);
        }
        List<RoundResult> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (Runtime runtime : runtimes) {
                KafkaRuntime chosen = runtime == Runtime.STOCK ? stock : module;
                RoundResult result = runRound(chosen, round);
                System.out.println(result.line());
                results.add(result);
                appendCsv(result);
            }
        }
        System.out.println();
        System.out.print(RoundResult.summary(results));
        return 0;
    }

    private RoundResult runRound(KafkaRuntime runtime, int round) throws Exception {
        Path directory = workDir.resolve(runtime.label() + "-" + mode.name().toLowerCase(Locale.ROOT) + "-" + round);
        ClusterSpec spec = ClusterSpec.threeNodes(runtime, directory).withMaxHeapMb(brokerHeapMb);
        try (KafkaCluster cluster = KafkaCluster.start(spec)) {
            cluster.createTopic("bench", partitions, 3, Map.of("min.insync.replicas", "2"));
            try (LongPollers pollers = mode == Mode.PARKED ? LongPollers.start(cluster, "bench", partitions, consumers) : LongPollers.none()) {
                ProduceLoad load = new ProduceLoad(cluster, "bench", recordSize, mode == Mode.MAX ? 0 : rate);
                load.run(warmupSeconds);
                BrokerSample before = BrokerSample.take(cluster);
                Histogram latency = load.run(durationSeconds);
                BrokerSample after = BrokerSample.take(cluster);
                Map<String, Long> parked = BrokerSample.parked(cluster);
                long heap = mode == Mode.PARKED || mode == Mode.RATE ? BrokerSample.heapAfterGc(cluster) : -1;
                load.close();
                RoundResult result = new RoundResult(runtime.label(), mode.name(), round, latency.getTotalCount(), durationSeconds,
                        after.cpuNanos() - before.cpuNanos(), after.produceRequests() - before.produceRequests(), latency,
                        parked, heap);
                appendLatency(runtime.label(), latency);
                return result;
            }
        }
    }

    private void validate() {
        CommandLine line = new CommandLine(this);
        if (rounds < 1 || rate < 1 || durationSeconds < 1 || warmupSeconds < 0 || recordSize < 1 || partitions < 1 || consumers < 0) {
            throw new CommandLine.ParameterException(line,
                    "--rounds, --rate, --duration, --record-size and --partitions must be at least 1, --warmup and --consumers at least 0");
        }
        if (runtimes.isEmpty()) {
            throw new CommandLine.ParameterException(line, "--runtimes names no runtime");
        }
    }

    private void appendCsv(RoundResult result) throws IOException {
        if (csv != null) {
            append(csv, RoundResult.CSV_HEADER, List.of(result.csv()));
        }
    }

    private void appendLatency(String runtime, Histogram latency) throws IOException {
        if (latencyCsv == null) {
            return;
        }
        List<String> rows = new ArrayList<>();
        for (double oneIn : new double[] {2, 4, 10, 20, 100, 200, 1_000, 2_000, 10_000}) {
            double percentile = 100.0 * (1 - 1 / oneIn);
            rows.add(String.format(Locale.ROOT, "%s,%s,%.0f,%.3f", runtime, mode.name(), oneIn,
                    latency.getValueAtPercentile(percentile) / 1_000.0));
        }
        append(latencyCsv, "runtime,mode,one_in,latency_ms", rows);
    }

    private static void append(Path file, String header, List<String> rows) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        boolean fresh = !Files.exists(file) || Files.size(file) == 0;
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            if (fresh) {
                out.println(header);
            }
            rows.forEach(out::println);
        }
    }
}
