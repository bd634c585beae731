package io.purgatory.benchmarks.timer;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Add a task with a 30 s delay, then cancel it at once: the path of a request that completes well
 * before its timeout, which is most of them. The timer already holds {@link PendingTimer#pending}
 * long-deadline tasks. One operation is one add plus one cancel.
 *
 * <p>The score is the callers' throughput. Ours and Netty's hand adds and cancels to their worker
 * thread and return; that thread's work shows only as competition for the cores (and in
 * {@code -prof gc}, which counts every thread's allocation). Kafka's and the JDK's do the work on the
 * caller, under locks.
 *
 * <p>Run (about 4 minutes for all 24 trials on 2 cores; {@code -p pending=1000} or
 * {@code -p timer=KAFKA} narrows it):
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TimerAddCancelBenchmark -prof gc -rf json -rff add-cancel.json
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class TimerAddCancelBenchmark {

    /** Kafka's default request timeout: the delay of a typical produce request. */
    private static final long REQUEST_TIMEOUT_MS = 30_000;

    @Benchmark
    @Threads(1)
    public void oneThread(Caller caller) {
        addThenCancel(caller.scheduler);
    }

    @Benchmark
    @Threads(2)
    public void twoThreads(Caller caller) {
        addThenCancel(caller.scheduler);
    }

    private static <H> void addThenCancel(TimerUnderTest.Scheduler<H> scheduler) {
        scheduler.cancel(scheduler.add(REQUEST_TIMEOUT_MS));
    }

    /** One benchmark thread's scheduler on the trial's timer. Confined to its thread. */
    @State(Scope.Thread)
    public static class Caller {
        private TimerUnderTest.Scheduler<?> scheduler;

        @Setup(Level.Trial)
        public void setUp(PendingTimer pendingTimer) {
            scheduler = pendingTimer.timer().scheduler(() -> { });
        }
    }
}
