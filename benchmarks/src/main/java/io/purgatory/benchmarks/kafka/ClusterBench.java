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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cluster benchmark: a real three-broker Kafka 4.4.0 cluster on stock Kafka against the same cluster with
 * purgatory-kafka first on each broker's classpath, a fresh cluster per round, the runtimes alternated round by
 * round. See {@code --help} and docs/benchmarks.md section 13.
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
            "  INFLIGHT --rate records/s from --producers producers, each with one request in flight per broker",
            "          (max.in.flight.requests.per.connection 1), records dealt round-robin over producers and",
            "          partitions; node " + ClusterBench.SLOWED_NODE + " is a slowed follower: it fetches from the leaders once every",
            "          --slowed-fetch-ms (its replica.fetch.wait.max.ms; replica.fetch.min.bytes 1 GiB, so that no fetch",
            "          returns earlier) and stays in the ISR (replica.lag.time.max.ms 30 s), so acks=all produces to the",
            "          partitions it follows park in the leaders' Produce purgatories until its next fetch: about",
            "          rate x 2/3 x that period records, one parked request per producer and leader. Kafka's Produce",
            "          NumDelayedOperations and PurgatorySize and the records in flight are sampled every 250 ms over",
            "          the period; CPU and heap are taken at its end, with the last produces still parked.",
            ""},
        footer = {
            "",
            "Example (java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.kafka.ClusterBench ...):",
            "  --mode RATE --rate 2000 --rounds 3 --latency-csv docs/benchmarks/results/cluster-latency.csv",
            "  --mode INFLIGHT --rate 7500 --record-size 100 --producers 1000 --rounds 2 --warmup 10 --duration 20"})
public final class ClusterBench implements Callable<Integer> {

    /** What a round drives. */
    enum Mode { RATE, MAX, PARKED, INFLIGHT }

    /** INFLIGHT's slowed follower. */
    static final int SLOWED_NODE = 2;
    /** Larger than any fetch from a leader here, so that the slowed follower's fetches wait their whole time. */
    private static final String NO_EARLY_FETCH_BYTES = Integer.toString(1 << 30);
    /** Far above the slowed follower's fetch period, so that it stays in the ISR and acks=all waits for it. */
    private static final String INFLIGHT_LAG_MS = "30000";

    /** Which broker classpath a round runs. */
    enum Runtime { STOCK, MODULE }

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--mode", description = "RATE, MAX, PARKED or INFLIGHT.")
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

    @Option(names = "--producers", description = "Producers (INFLIGHT).")
    private int producers = 1_000;

    @Option(names = "--slowed-fetch-ms", description = "The slowed follower's fetch period, its replica.fetch.wait.max.ms (INFLIGHT; below 30,000).")
    private int slowedFetchMs = 2_000;

    @Option(names = "--broker-heap-mb", description = "Each broker's -Xmx.")
    private int brokerHeapMb = 512;

    @Option(names = "--broker-classpath", description = "Kafka 4.4.0's classpath file (mvn -B -q -pl kafka-brokers/4.4.0 generate-resources).")
    private Path brokerClasspath = Path.of("kafka-brokers/4.4.0/target/broker.classpath");

    @Option(names = "--module-jar", description = "The purgatory-kafka jar (mvn -B -q -pl purgatory-kafka -am package -DskipTests).")
    private Path moduleJar = Path.of("purgatory-kafka/kafka-4.4/target/purgatory-kafka-4.4-0.1.0-SNAPSHOT.jar");

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
        if (mode == Mode.INFLIGHT) {
            spec = spec.withBrokerProperty("replica.lag.time.max.ms", INFLIGHT_LAG_MS)
                    .withNodeProperty(SLOWED_NODE, "replica.fetch.wait.max.ms", Integer.toString(slowedFetchMs))
                    .withNodeProperty(SLOWED_NODE, "replica.fetch.min.bytes", NO_EARLY_FETCH_BYTES);
        }
        try (KafkaCluster cluster = KafkaCluster.start(spec)) {
            cluster.createTopic("bench", partitions, 3, Map.of("min.insync.replicas", "2"));
            return mode == Mode.INFLIGHT ? inFlightRound(cluster, runtime, round) : produceRound(cluster, runtime, round);
        }
    }

    /** RATE, MAX, PARKED: one producer; CPU over the period up to its last ack. */
    private RoundResult produceRound(KafkaCluster cluster, KafkaRuntime runtime, int round) throws Exception {
        try (LongPollers pollers = mode == Mode.PARKED ? LongPollers.start(cluster, "bench", partitions, consumers) : LongPollers.none();
             ProduceLoad load = ProduceLoad.single(cluster, "bench", recordSize, mode == Mode.MAX ? 0 : rate)) {
            load.run(warmupSeconds);
            BrokerSample before = BrokerSample.take(cluster);
            Histogram latency = load.run(durationSeconds);
            BrokerSample after = BrokerSample.take(cluster);
            Map<String, Long> parked = BrokerSample.parked(cluster);
            long heap = mode == Mode.PARKED || mode == Mode.RATE ? BrokerSample.heapAfterGc(cluster) : -1;
            appendLatency(runtime.label(), latency);
            return new RoundResult(runtime.label(), mode.name(), round, latency.getTotalCount(), durationSeconds,
                    after.cpuNanos() - before.cpuNanos(), after.produceRequests() - before.produceRequests(), latency,
                    parked, heap, null);
        }
    }

    /**
     * INFLIGHT: the fleet of producers, warm-up and measured period in one stretch (no flush between, so the period
     * starts and ends with produces parked); CPU, sizes and heap over the period up to its last send, the produces of
     * its last moments still parked, so that the heap holds what the purgatories hold in the steady state. The records
     * counted are those sent in the period (each acked, after it if need be).
     */
    private RoundResult inFlightRound(KafkaCluster cluster, KafkaRuntime runtime, int round) throws Exception {
        try (ProduceLoad load = ProduceLoad.fleet(cluster, "bench", partitions, recordSize, rate, producers)) {
            AtomicReference<BrokerSample> before = new AtomicReference<>();
            AtomicReference<ParkedProduce.Sampler> sampler = new AtomicReference<>();
            AtomicReference<BrokerSample> after = new AtomicReference<>();
            AtomicReference<ParkedProduce> parkedProduce = new AtomicReference<>();
            AtomicReference<Map<String, Long>> parked = new AtomicReference<>();
            AtomicLong heap = new AtomicLong();
            Histogram latency = load.run(warmupSeconds, durationSeconds, () -> {
                before.set(BrokerSample.take(cluster));
                sampler.set(ParkedProduce.Sampler.start(cluster, load::inFlight));
            }, () -> {
                after.set(BrokerSample.take(cluster));
                try {
                    parkedProduce.set(sampler.get().stop());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while sampling", e);
                }
                parked.set(BrokerSample.parked(cluster));
                heap.set(BrokerSample.heapAfterGc(cluster));
            });
            int outOfIsr = partitionsWithoutSlowedFollower(cluster);
            if (outOfIsr > 0) {
                System.out.printf("WARN: the slowed follower (node %d) is out of the ISR of %d partitions at the end: "
                        + "acks=all did not wait for it there%n", SLOWED_NODE, outOfIsr);
            }
            appendLatency(runtime.label(), latency);
            return new RoundResult(runtime.label(), mode.name(), round, latency.getTotalCount(), durationSeconds,
                    after.get().cpuNanos() - before.get().cpuNanos(), after.get().produceRequests() - before.get().produceRequests(), latency,
                    parked.get(), heap.get(), parkedProduce.get());
        }
    }

    private int partitionsWithoutSlowedFollower(KafkaCluster cluster) {
        return (int) cluster.describe("bench").partitions().stream()
                .filter(p -> p.isr().stream().noneMatch(n -> n.id() == SLOWED_NODE))
                .count();
    }

    private void validate() {
        CommandLine line = new CommandLine(this);
        if (rounds < 1 || rate < 1 || durationSeconds < 1 || warmupSeconds < 0 || recordSize < 1 || partitions < 1 || consumers < 0
                || producers < 1) {
            throw new CommandLine.ParameterException(line, "--rounds, --rate, --duration, --record-size, --partitions and --producers"
                    + " must be at least 1, --warmup and --consumers at least 0");
        }
        if (slowedFetchMs < 1 || slowedFetchMs >= Integer.parseInt(INFLIGHT_LAG_MS)) {
            throw new CommandLine.ParameterException(line, "--slowed-fetch-ms must be from 1 to " + (Integer.parseInt(INFLIGHT_LAG_MS) - 1)
                    + " (below replica.lag.time.max.ms, as Kafka requires), not " + slowedFetchMs);
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
