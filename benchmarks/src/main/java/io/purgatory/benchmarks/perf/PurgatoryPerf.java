package io.purgatory.benchmarks.perf;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The side-by-side purgatory performance tool: the same generated workload against our
 * {@code DelayedOperationPurgatory} (in HWM mode also with position watches) and Kafka's, one after
 * the other in this process, and a table of what each did with the ratio of ours to Kafka's. See
 * {@code --help} and docs/benchmarks.md.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "purgatory-perf", sortOptions = false, showDefaultValues = true,
        usageHelpWidth = 110,
        description = {
            "Runs one workload against io.purgatory.DelayedOperationPurgatory and against Kafka 4.4.0's "
                    + "org.apache.kafka.server.purgatory.DelayedOperationPurgatory, one after the other in this "
                    + "JVM, and prints for each: achieved rate, CPU per request (whole process, and the driver "
                    + "thread alone), completion latency and expiry lateness percentiles, heap after GC, and "
                    + "the ratio ours/kafka.",
            "",
            "Modes:",
            "  RATE   offer requests at --rate for --duration seconds (after --warmup seconds).",
            "  MAX    the same with no rate limit: the driver offers and completes as fast as it can.",
            "  SCALE  hold --pending operations that neither complete nor expire and report the heap",
            "         each costs: heap after a full GC, holding minus before, divided by --pending.",
            "  HWM    high watermark: produce requests waiting for replication (below), no rate limit.",
            "",
            "RATE, MAX: a request is an operation watching --keys-per-request of --keys keys with a --timeout-ms "
                    + "timeout. A --complete-fraction of requests has its condition come true after a delay "
                    + "drawn from --completion (mean --completion-mean-ms); the driver thread, which also "
                    + "offers the requests, then calls checkAndComplete on the request's first key, before "
                    + "its next offer. The rest expire. Completion latency is "
                    + "the time from the condition coming true to the operation completing; expiry lateness "
                    + "the time from the deadline to the expiry (an expiry before the deadline counts as 0 "
                    + "and is counted apart).",
            "",
            "HWM: requests go round robin to --partitions partitions. A --expire-fraction of them waits for an "
                    + "offset that never comes and expires after --timeout-ms; every other one is a produce "
                    + "waiting (up to an hour) for its partition's next offset. Right after each produce the "
                    + "driver, as the follower, moves that partition's high watermark to the produced offset "
                    + "minus --lag and tells the purgatory: ours-positions with advance(partition, hw), ours "
                    + "and kafka with checkAndComplete(partition), the only form Kafka has. So each partition "
                    + "holds --lag parked produces (filled before the warm-up), plus the expiring requests. "
                    + "--lag takes a list (e.g. 100,1000,10000,100000): each lag is a run of every purgatory, "
                    + "and a table across lags follows. For the fairest figures run one purgatory per JVM "
                    + "(--purgatories) and collect the lines with --csv.",
            ""},
        footer = {
            "",
            "Examples (java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.perf.PurgatoryPerf ...):",
            "  --mode RATE --rate 20000 --timeout-ms 500 --complete-fraction 0.75",
            "  --mode MAX --duration 5",
            "  --mode SCALE --pending 1000000 --keys-per-request 3",
            "  --mode HWM --lag 100,1000,10000,100000 --purgatories OURS_POSITIONS --csv hwm.csv"})
public final class PurgatoryPerf implements Callable<Integer> {

    /** What a run measures. */
    enum Mode { RATE, MAX, SCALE, HWM }

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--mode", description = "RATE, MAX, SCALE or HWM (see above).")
    private Mode mode = Mode.RATE;

    @Option(names = "--rate", description = "Requests per second offered in RATE mode.")
    private double rate = 20_000;

    @Option(names = "--duration", description = "Measured seconds per purgatory (RATE, MAX, HWM).")
    private int durationSeconds = 8;

    @Option(names = "--warmup", description = "Unmeasured seconds of the same load before, per purgatory (RATE, MAX, HWM).")
    private int warmupSeconds = 3;

    @Option(names = "--keys", description = "Distinct watch keys (think partitions).")
    private int keys = 1000;

    @Option(names = "--keys-per-request", description = "Keys each request watches.")
    private int keysPerRequest = 1;

    @Option(names = "--timeout-ms", description = "Each request's timeout (RATE, MAX); the expiring requests' (HWM).")
    private long timeoutMs = 500;

    @Option(names = "--complete-fraction",
            description = "Share of requests whose condition comes true (unless the drawn delay reaches the timeout).")
    private double completeFraction = 0.75;

    @Option(names = "--completion", description = "Distribution of the completion delay: EXPONENTIAL or LOGNORMAL.")
    private CompletionDelay completion = CompletionDelay.LOGNORMAL;

    @Option(names = "--completion-mean-ms", description = "Mean completion delay.")
    private double completionMeanMs = 20;

    @Option(names = "--lognormal-sigma",
            description = "Shape of the log-normal: the standard deviation of the log of the delay.")
    private double lognormalSigma = 1.0;

    @Option(names = "--pending", description = "Operations held in SCALE mode.")
    private int pending = 1_000_000;

    @Option(names = "--partitions", description = "Partitions (HWM).")
    private int partitions = 8;

    @Option(names = "--lag", split = ",", paramLabel = "<lag>",
            description = "Produce requests parked per partition: how far the high watermark lags (HWM); "
                    + "a comma-separated list runs each.")
    private List<Integer> lags = List.of(1000);

    @Option(names = "--expire-fraction", description = "Share of requests that wait for nothing the high "
            + "watermark brings, and expire (HWM).")
    private double expireFraction = 0.2;

    @Option(names = "--csv", paramLabel = "<file>",
            description = "Append a CSV line per purgatory and lag to this file (HWM), for CsvChart.")
    private Path csv;

    @Option(names = "--purgatories", split = ",", paramLabel = "<purgatory>",
            description = "Which purgatories to run, in order: OURS, KAFKA, and in HWM mode OURS_POSITIONS and "
                    + "WAITERS_FUTURE (Waiters' future form on position watches). "
                    + "Default: OURS,KAFKA; in HWM mode OURS_POSITIONS,OURS,KAFKA.")
    private List<PurgatoryImplementation> purgatories;

    @Option(names = "--seed", description = "Seed of the workload's random draws (the same for every purgatory).")
    private long seed = 1;

    public static void main(String[] args) {
        int exitCode = new CommandLine(new PurgatoryPerf())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        System.exit(exitCode);
    }

    @Override
    public Integer call() {
        Workload workload = workload();
        List<HighWatermarkWorkload> hwmWorkloads = mode == Mode.HWM ? hwmWorkloads() : List.of();
        List<PurgatoryImplementation> implementations = implementations();
        if (durationSeconds < 1 || warmupSeconds < 0 || pending < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--duration must be at least 1, --warmup at least 0, --pending at least 1");
        }
        System.out.println(describe(workload));
        CpuClock cpu = new CpuClock();
        List<String> labels = implementations.stream().map(PurgatoryImplementation::label).collect(Collectors.toList());
        try (HeapGauge heap = new HeapGauge()) {
            switch (mode) {
                case SCALE -> {
                    ScaleRun run = new ScaleRun(workload, pending, heap, cpu);
                    List<ScaleResult> results = new ArrayList<>();
                    for (PurgatoryImplementation purgatory : implementations) {
                        System.out.println("holding " + pending + " operations in " + purgatory.label() + " ...");
                        results.add(run.measure(purgatory));
                    }
                    System.out.println();
                    System.out.print(Reports.scale(labels, results).render());
                }
                case HWM -> highWatermark(hwmWorkloads, implementations, labels, heap, cpu);
                default -> {
                    List<LoadResult> results = load(purgatory -> new LoadGenerator(workload, purgatory),
                            implementations, heap, cpu, "");
                    System.out.println();
                    System.out.print(Reports.load(labels, results).render());
                }
            }
        }
        return 0;
    }

    /** Every lag's run of every purgatory, its table, then the table across lags and the CSV lines. */
    private void highWatermark(List<HighWatermarkWorkload> workloads, List<PurgatoryImplementation> implementations,
                               List<String> labels, HeapGauge heap, CpuClock cpu) {
        List<List<LoadResult>> byLag = new ArrayList<>();
        List<String> csvLines = new ArrayList<>();
        for (HighWatermarkWorkload hwm : workloads) {
            List<LoadResult> results = load(purgatory -> new HighWatermarkDriver(hwm, purgatory), implementations,
                    heap, cpu, " with lag " + Figures.count(hwm.lag()));
            System.out.println();
            System.out.println("lag " + Figures.count(hwm.lag()) + ":");
            System.out.print(Reports.load(labels, results).render());
            System.out.println();
            byLag.add(results);
            for (int i = 0; i < implementations.size(); i++) {
                csvLines.add(HighWatermarkCsv.line(implementations.get(i), hwm, results.get(i)));
            }
        }
        System.out.println("across lags:");
        System.out.print(Reports.highWatermark(implementations, lags, byLag).render());
        if (csv != null) {
            HighWatermarkCsv.append(csv, csvLines);
            System.out.println("appended " + csvLines.size() + " lines to " + csv);
        }
    }

    private List<LoadResult> load(Function<PurgatoryUnderTest, LoadDriver> drivers,
                                  List<PurgatoryImplementation> implementations, HeapGauge heap, CpuClock cpu,
                                  String what) {
        LoadRun run = new LoadRun(drivers, TimeUnit.SECONDS.toNanos(warmupSeconds),
                TimeUnit.SECONDS.toNanos(durationSeconds), heap, cpu);
        List<LoadResult> results = new ArrayList<>();
        for (PurgatoryImplementation purgatory : implementations) {
            System.out.println("running " + purgatory.label() + what + " ...");
            results.add(run.measure(purgatory));
        }
        return results;
    }

    private Workload workload() {
        try {
            return new Workload(mode == Mode.RATE ? rate : 0, keys, keysPerRequest, timeoutMs, completeFraction,
                    completion, completionMeanMs, lognormalSigma, seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private List<HighWatermarkWorkload> hwmWorkloads() {
        try {
            return lags.stream()
                    .map(lag -> new HighWatermarkWorkload(partitions, lag, timeoutMs, expireFraction, seed))
                    .toList();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private List<PurgatoryImplementation> implementations() {
        if (purgatories == null) {
            return mode == Mode.HWM
                    ? List.of(PurgatoryImplementation.OURS_POSITIONS, PurgatoryImplementation.OURS,
                            PurgatoryImplementation.KAFKA)
                    : List.of(PurgatoryImplementation.OURS, PurgatoryImplementation.KAFKA);
        }
        for (PurgatoryImplementation positionsOnly : List.of(PurgatoryImplementation.OURS_POSITIONS, PurgatoryImplementation.WAITERS_FUTURE)) {
            if (mode != Mode.HWM && purgatories.contains(positionsOnly)) {
                throw new ParameterException(spec.commandLine(),
                        positionsOnly + " runs in HWM mode only: the other modes' requests watch keys, not positions");
            }
        }
        return purgatories;
    }

    private String describe(Workload workload) {
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        String machine = String.format(Locale.ROOT, "JDK %s, %d cores, max heap %s MiB, GC %s", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Figures.mebibytes(Runtime.getRuntime().maxMemory()), gcs);
        String keying = workload.keysPerRequest() + " of " + workload.keys() + " keys per request";
        String load = switch (mode) {
            case RATE -> String.format(Locale.ROOT, "RATE %.0f requests/s", workload.ratePerSecond());
            case MAX -> "MAX rate";
            case SCALE -> "SCALE " + pending + " pending operations, " + keying;
            case HWM -> String.format(Locale.ROOT,
                    "HWM for %d s after %d s warm-up, %d partitions, lag %s per partition, %.0f%% of requests "
                            + "expire after %d ms", durationSeconds, warmupSeconds, partitions,
                    lags.stream().map(Figures::count).collect(Collectors.joining(", ")), 100 * expireFraction,
                    timeoutMs);
        };
        if (mode == Mode.RATE || mode == Mode.MAX) {
            String shape = workload.completionDelay() == CompletionDelay.LOGNORMAL
                    ? " (sigma " + workload.lognormalSigma() + ")"
                    : "";
            load += String.format(Locale.ROOT,
                    " for %d s after %d s warm-up, %s, timeout %d ms, %.0f%% complete after %s delay with mean %.1f ms%s",
                    durationSeconds, warmupSeconds, keying, workload.timeoutMs(), 100 * workload.completeFraction(),
                    workload.completionDelay().name().toLowerCase(Locale.ROOT), workload.completionMeanMs(), shape);
        }
        return "purgatory-perf: " + load + System.lineSeparator() + machine;
    }
}
