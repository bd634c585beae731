package io.purgatory.benchmarks.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The CPU one {@code checkAndComplete} spends per operation it completes: {@code --operations}
 * operations parked on {@code --keys} keys each (the first key shared by all), a fraction of them
 * made completable, then one {@code checkAndComplete} of the shared key, timed with the calling
 * thread's CPU clock. This is the walk of a key's list in isolation, without a load generator or a
 * timer racing it. One purgatory per JVM; run the purgatories alternately.
 *
 * <p>Not thread-safe: a main.
 */
@Command(name = "walk-cpu-perf", mixinStandardHelpOptions = true,
        description = "CPU per completion of one checkAndComplete over a key with many parked operations.")
public final class WalkCpuPerf implements Callable<Integer> {

    private static final long PARKED_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);

    @Option(names = "--purgatory", required = true, description = "ours or kafka")
    private String purgatory;

    @Option(names = "--operations", description = "Operations parked on the key (default ${DEFAULT-VALUE}).")
    private int operations = 100_000;

    @Option(names = "--keys", description = "Keys each operation watches (default ${DEFAULT-VALUE}).")
    private int keys = 1;

    @Option(names = "--fraction", description = "Fraction of them completable at the walk (default ${DEFAULT-VALUE}).")
    private double fraction = 1.0;

    @Option(names = "--warmup", description = "Unmeasured walks first (default ${DEFAULT-VALUE}).")
    private int warmup = 20;

    @Option(names = "--rounds", description = "Measured walks (default ${DEFAULT-VALUE}).")
    private int rounds = 20;

    public static void main(String[] args) {
        System.exit(new CommandLine(new WalkCpuPerf()).execute(args));
    }

    @Override
    public Integer call() {
        if (!(fraction > 0 && fraction <= 1) || keys < 1 || operations < 1) {
            System.err.println("walk-cpu-perf: need 0 < --fraction <= 1, --keys >= 1, --operations >= 1");
            return 2;
        }
        PurgatoryImplementation implementation = switch (purgatory) {
            case "ours" -> PurgatoryImplementation.OURS;
            case "kafka" -> PurgatoryImplementation.KAFKA;
            default -> null;
        };
        if (implementation == null) {
            System.err.println("walk-cpu-perf: --purgatory must be ours or kafka, not " + purgatory);
            return 2;
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<WatchKey> watched = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            watched.add(new WatchKey(k));
        }
        WatchKey shared = watched.get(0);
        int every = (int) Math.round(1 / fraction);
        double[] perCompletion = new double[rounds];
        double[] perTried = new double[rounds];
        for (int round = -warmup; round < rounds; round++) {
            try (PurgatoryUnderTest under = implementation.open(new Outcomes())) {
                Completable[] parked = new Completable[operations];
                for (int i = 0; i < operations; i++) {
                    parked[i] = under.offer(PARKED_TIMEOUT_MS, Long.MAX_VALUE, watched);
                }
                int completable = 0;
                for (int i = 0; i < operations; i += every) {
                    parked[i].makeCompletable();
                    completable++;
                }
                long before = under.pending();
                long cpuStart = threads.getCurrentThreadCpuTime();
                under.checkAndComplete(shared);
                long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
                long completed = before - under.pending();
                if (completed != completable) {
                    throw new IllegalStateException("completed " + completed + " of " + completable);
                }
                if (round >= 0) {
                    perCompletion[round] = (double) cpu / completed;
                    perTried[round] = (double) cpu / operations;
                }
            }
        }
        Arrays.sort(perCompletion);
        Arrays.sort(perTried);
        System.out.printf(Locale.ROOT,
                "%-6s operations %,d keys %d fraction %.2f: CPU per completion median %.1f ns (min %.1f, max %.1f), per operation walked median %.1f ns%n",
                purgatory, operations, keys, fraction, perCompletion[rounds / 2], perCompletion[0],
                perCompletion[rounds - 1], perTried[rounds / 2]);
        return 0;
    }
}
