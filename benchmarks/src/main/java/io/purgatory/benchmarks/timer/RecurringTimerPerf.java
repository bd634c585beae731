package io.purgatory.benchmarks.timer;

import io.purgatory.benchmarks.perf.CpuClock;
import io.purgatory.benchmarks.perf.HeapGauge;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerTask;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Many recurring tasks on one timer: the job-scheduler use of a timing wheel. Each timer of
 * {@link TimerImplementation} in turn, in this JVM, holds {@code --tasks} tasks that each run every
 * {@code --period-ms}, and the tool reports the heap each task holds and what each run costs. See
 * {@code --help} and docs/benchmarks.md.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "recurring-timer-perf", sortOptions = false, showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Schedules --tasks recurring tasks with a --period-ms period on each timer in turn, in this JVM, their "
                    + "first runs spread evenly over one period, so that the timer runs tasks/period per second. "
                    + "Each run increments a shared counter. Ours and the JDK's use their fixed rate "
                    + "(SystemTimer.scheduleAtFixedRate, ScheduledThreadPoolExecutor.scheduleAtFixedRate); "
                    + "Netty's and Kafka's have none, so each run re-adds the task, the way their users do it.",
            "",
            "For each timer, after --warmup-s seconds of running, over --duration-s seconds: the runs per second "
                    + "achieved (against the rate offered), the process CPU time per run (every thread: the timer's, "
                    + "GC, JIT; and apart, of each thread the timer started), the cores that makes, and the bytes "
                    + "allocated per run (every thread); then the heap "
                    + "each task holds: heap after a full GC with the tasks running, minus before they were "
                    + "scheduled, divided by --tasks.",
            ""},
        footer = {
            "",
            "Example (java -Xmx4g -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.timer.RecurringTimerPerf ...):",
            "  --tasks 1000000 --period-ms 1000 --timers PURGATORY,JDK,NETTY,KAFKA"})
public final class RecurringTimerPerf implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--tasks", description = "Recurring tasks held by each timer.")
    private int tasks = 1_000_000;

    @Option(names = "--period-ms", description = "Period of every task, in milliseconds.")
    private long periodMs = 1_000;

    @Option(names = "--warmup-s", description = "Seconds of running before measuring.")
    private int warmupSeconds = 5;

    @Option(names = "--duration-s", description = "Seconds measured.")
    private int durationSeconds = 10;

    @Option(names = "--timers", split = ",", description = "Timers to run, in this order: ${COMPLETION-CANDIDATES}.")
    private List<TimerImplementation> timers = List.of(TimerImplementation.PURGATORY, TimerImplementation.JDK,
            TimerImplementation.NETTY, TimerImplementation.KAFKA);

    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final CpuClock cpu = new CpuClock();

    public static void main(String[] args) {
        int exitCode = new CommandLine(new RecurringTimerPerf())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        System.exit(exitCode);
    }

    @Override
    public Integer call() throws InterruptedException {
        if (tasks < 1 || periodMs < 1 || warmupSeconds < 0 || durationSeconds < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--tasks and --period-ms must be positive, --warmup-s at least 0, --duration-s at least 1");
        }
        System.out.printf(Locale.ROOT, "%,d recurring tasks, period %,d ms: %,.0f runs/s offered; warm-up %d s, measured %d s; %s, %d cores%n",
                tasks, periodMs, offeredRate(), warmupSeconds, durationSeconds, Runtime.version(), Runtime.getRuntime().availableProcessors());
        List<Result> results = new ArrayList<>();
        try (HeapGauge heap = new HeapGauge()) {
            System.out.printf(Locale.ROOT, "heap per pending task on io.purgatory.timer.SystemTimer, %,d of each, due in an hour:%n", tasks);
            for (Form form : Form.values()) {
                System.out.printf(Locale.ROOT, "  %-68s %4d B%n", form.description, heapPerPendingTask(form, heap));
            }
            for (TimerImplementation implementation : timers) {
                System.out.println("running " + implementation + " ...");
                results.add(run(implementation, heap));
            }
        }
        System.out.println();
        System.out.print(table(results));
        return 0;
    }

    private Result run(TimerImplementation implementation, HeapGauge heap) throws InterruptedException {
        LongAdder ran = new LongAdder();
        long heapBefore = settledHeap(heap);
        Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
        try (TimerUnderTest timer = implementation.open()) {
            TimerUnderTest.Recurring recurring = timer.recurring(ran::increment, periodMs);
            for (int i = 0; i < tasks; i++) {
                recurring.start(i * periodMs / tasks);
            }
            pause(TimeUnit.SECONDS.toNanos(warmupSeconds));

            Map<Thread, Long> timerThreadsBefore = new LinkedHashMap<>();
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (!threadsBefore.contains(thread)) {
                    timerThreadsBefore.put(thread, cpu.threadNanos(thread.getId()));
                }
            }
            long runsBefore = ran.sum();
            long cpuBefore = cpu.processNanos();
            long allocatedBefore = allocatedBytes();
            long start = System.nanoTime();
            pause(TimeUnit.SECONDS.toNanos(durationSeconds));
            long wall = System.nanoTime() - start;
            long runs = ran.sum() - runsBefore;
            long cpuNanos = cpu.processNanos() - cpuBefore;
            long allocated = allocatedBytes() - allocatedBefore;
            Map<String, Double> threadNanosPerRun = new LinkedHashMap<>();
            timerThreadsBefore.forEach((thread, before) -> threadNanosPerRun.put(thread.getName(),
                    (double) (cpu.threadNanos(thread.getId()) - before) / Math.max(1, runs)));
            long heapPerTask = (heap.afterFullGc() - heapBefore) / tasks; // in steady state, after the measurement
            return new Result(implementation, heapPerTask, runs * 1e9 / wall, (double) cpuNanos / Math.max(1, runs),
                    (double) cpuNanos / wall, (double) allocated / Math.max(1, runs), threadNanosPerRun);
        } finally {
            awaitEnd(threadsBefore); // a timer thread still draining would keep its tasks in the next timer's heap figure
        }
    }

    /** Our timer's ways to hold a task, whose heap per task {@link #heapPerPendingTask} measures. */
    private enum Form {
        TASK("add(TimerTask subclass holding a callback)"),
        CALLBACK("schedule(callback, delay): the one-shot handle"),
        FIXED_RATE("scheduleAtFixedRate(callback, delay, period): the recurring handle");

        final String description;

        Form(String description) {
            this.description = description;
        }
    }

    /** The heap each of --tasks pending tasks of one form holds in our timer (the callback is shared). */
    private long heapPerPendingTask(Form form, HeapGauge heap) throws InterruptedException {
        long hourMs = TimeUnit.HOURS.toMillis(1);
        Runnable callback = () -> { };
        long before = settledHeap(heap);
        Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
        try (SystemTimer timer = new SystemTimer("bench-heap-" + form)) {
            for (int i = 0; i < tasks; i++) {
                switch (form) {
                    case TASK -> timer.add(new CallbackHolder(hourMs, callback));
                    case CALLBACK -> timer.schedule(callback, hourMs);
                    case FIXED_RATE -> timer.scheduleAtFixedRate(callback, hourMs, hourMs);
                }
            }
            return (heap.afterFullGc() - before) / tasks;
        } finally {
            awaitEnd(threadsBefore);
        }
    }

    /** The subclass a user writes to schedule a callback with a {@link TimerTask}. */
    private static final class CallbackHolder extends TimerTask {
        private final Runnable callback;

        CallbackHolder(long delayMs, Runnable callback) {
            super(delayMs);
            this.callback = callback;
        }

        @Override
        public void run() {
            callback.run();
        }
    }

    /**
     * The heap after full collections, once it stops shrinking: what a stopped timer leaves (Netty's
     * timer hands its unprocessed timeouts back from {@code stop()}) can take a moment to become garbage.
     */
    private static long settledHeap(HeapGauge heap) {
        long used = heap.afterFullGc();
        for (int i = 0; i < 20; i++) {
            pause(TimeUnit.MILLISECONDS.toNanos(250));
            long again = heap.afterFullGc();
            if (again > used - used / 100) {
                return Math.min(used, again);
            }
            used = again;
        }
        return used;
    }

    /** Waits for every thread started since {@code threadsBefore} (the closed timer's) to end. */
    private static void awaitEnd(Set<Thread> threadsBefore) throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (!threadsBefore.contains(thread)) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
                if (thread.isAlive()) {
                    System.out.println("warning: thread " + thread.getName() + " still runs; the next heap figure may include it");
                }
            }
        }
    }

    private double offeredRate() {
        return tasks * 1000.0 / periodMs;
    }

    /** Bytes allocated so far by the live threads (the timers' threads live as long as the timer). */
    private long allocatedBytes() {
        long[] ids = threads.getAllThreadIds();
        return Arrays.stream(threads.getThreadAllocatedBytes(ids)).filter(b -> b > 0).sum();
    }

    private static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private String table(List<Result> results) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-10s %14s %14s %14s %12s %14s%n",
                "timer", "heap/task B", "runs/s", "CPU/run ns", "CPU cores", "alloc/run B"));
        for (Result r : results) {
            out.append(String.format(Locale.ROOT, "%-10s %,14d %,14.0f %,14.0f %12.2f %,14.1f%n",
                    r.timer, r.heapPerTask, r.runsPerSecond, r.cpuNanosPerRun, r.cores, r.allocatedPerRun));
        }
        out.append(String.format(Locale.ROOT, "%nCPU per run of each thread the timer started (ns):%n"));
        for (Result r : results) {
            r.threadNanosPerRun.forEach((thread, nanos) ->
                    out.append(String.format(Locale.ROOT, "%-10s %-28s %,8.0f%n", r.timer, thread, nanos)));
        }
        return out.toString();
    }

    /** What one timer did. */
    private record Result(TimerImplementation timer, long heapPerTask, double runsPerSecond, double cpuNanosPerRun,
            double cores, double allocatedPerRun, Map<String, Double> threadNanosPerRun) {
    }
}
