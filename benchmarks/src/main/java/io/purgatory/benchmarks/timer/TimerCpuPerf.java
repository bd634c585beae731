package io.purgatory.benchmarks.timer;

import io.purgatory.benchmarks.perf.CpuClock;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Add + cancel on one timer holding {@code --pending} long-deadline tasks, measured in process CPU
 * time per operation (every thread: the caller's, the timer's own, GC, JIT) as well as in operations
 * per second: on a shared machine the CPU a timer spends per operation moves far less than its
 * throughput, which depends on the cores the scheduler gives it. One timer per JVM; run the timers
 * alternately. The add + cancel is the JMH benchmark's ({@code TimerAddCancelBenchmark.oneThread}):
 * one thread adds a task due in 30 s and cancels it at once.
 *
 * <p>Not thread-safe: a main.
 */
@Command(name = "timer-cpu-perf", mixinStandardHelpOptions = true,
        description = "Add + cancel on a timer holding many pending tasks: operations/s and CPU per operation.")
public final class TimerCpuPerf implements Callable<Integer> {

    private static final long REQUEST_TIMEOUT_MS = 30_000;

    @Option(names = "--timer", required = true, description = "${COMPLETION-CANDIDATES}")
    private TimerImplementation timer;

    @Option(names = "--pending", description = "Long-deadline tasks held (default ${DEFAULT-VALUE}).")
    private int pending = 1_000_000;

    @Option(names = "--warmup", description = "Add + cancel pairs before measuring (default ${DEFAULT-VALUE}).")
    private int warmup = 20_000_000;

    @Option(names = "--operations", description = "Add + cancel pairs measured (default ${DEFAULT-VALUE}).")
    private int operations = 50_000_000;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TimerCpuPerf()).execute(args));
    }

    @Override
    public Integer call() {
        CpuClock cpu = new CpuClock();
        try (TimerUnderTest opened = timer.open()) {
            TimerUnderTest.Scheduler<?> pendingScheduler = opened.scheduler(() -> { });
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < pending; i++) {
                pendingScheduler.add(TimeUnit.MINUTES.toMillis(10) + random.nextLong(TimeUnit.MINUTES.toMillis(10)));
            }
            TimerUnderTest.Scheduler<?> scheduler = opened.scheduler(() -> { });
            addCancel(scheduler, warmup);
            long cpuStart = cpu.processNanos();
            long start = System.nanoTime();
            addCancel(scheduler, operations);
            long wall = System.nanoTime() - start;
            long cpuNanos = cpu.processNanos() - cpuStart;
            System.out.printf(Locale.ROOT, "%-20s pending %,d  %,.0f add+cancel/s  %.1f ns CPU per add+cancel  (%.2f cores)%n",
                    timer, pending, operations * 1e9 / wall, (double) cpuNanos / operations, (double) cpuNanos / wall);
        }
        return 0;
    }

    private static <H> void addCancel(TimerUnderTest.Scheduler<H> scheduler, int count) {
        for (int i = 0; i < count; i++) {
            scheduler.cancel(scheduler.add(REQUEST_TIMEOUT_MS));
        }
    }
}
