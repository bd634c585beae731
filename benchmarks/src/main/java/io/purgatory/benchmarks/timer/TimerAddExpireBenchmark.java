package io.purgatory.benchmarks.timer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
 * How many short tasks per second a timer can take in and expire: the path of a request that times
 * out. The timer already holds {@link PendingTimer#pending} long-deadline tasks.
 *
 * <p>One operation adds a task due in 1 ms whose run counts one expiry. Each benchmark thread keeps
 * at most {@code IN_FLIGHT_LIMIT} (65,536) of its tasks added and not yet run; at the limit it parks
 * in 50 µs steps until some have run. Adding cannot outrun expiring for long, so over an
 * iteration the score (adds per second) equals the expiry rate to within {@code IN_FLIGHT_LIMIT}
 * operations per thread: it is the rate the timer sustains for add, wait, expire and run together,
 * including the hand-off to whichever thread runs expired tasks. Polling instead of a per-task
 * wake-up keeps the harness's cost off the timer's expiry thread, which only increments a counter.
 *
 * <p>Caveats. The window alone caps the score at {@code IN_FLIGHT_LIMIT / latency} per thread, where
 * latency is the 1 ms delay plus the timer's lateness (up to a tick): about 30 million per second per
 * thread at 2 ms. A score per thread within a factor of three of that may be the window's limit,
 * not the timer's. A timer slower than its callers holds a full window, so during measurement it
 * holds up to {@code IN_FLIGHT_LIMIT} short tasks per thread on top of the pending ones.
 *
 * <p>Run (about 4 minutes for all 24 trials on 2 cores):
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TimerAddExpireBenchmark -prof gc -rf json -rff add-expire.json
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class TimerAddExpireBenchmark {

    /** The delay of every measured task: the shortest a 1 ms timer can express. */
    private static final long EXPIRY_DELAY_MS = 1;
    /** Tasks of one thread added and not yet run, at most. */
    private static final int IN_FLIGHT_LIMIT = 1 << 16;
    private static final long FULL_WINDOW_PARK_NANOS = 50_000;

    @Benchmark
    @Threads(1)
    public Object oneThread(Caller caller) {
        return caller.addShortTask();
    }

    @Benchmark
    @Threads(2)
    public Object twoThreads(Caller caller) {
        return caller.addShortTask();
    }

    /**
     * One benchmark thread's scheduler and its window of tasks in flight. {@code added} is confined
     * to the benchmark thread; {@code expired} is incremented by the timer's expiry thread.
     */
    @State(Scope.Thread)
    public static class Caller {
        private final AtomicLong expired = new AtomicLong();
        private long added;
        private TimerUnderTest.Scheduler<?> scheduler;

        @Setup(Level.Trial)
        public void setUp(PendingTimer pendingTimer) {
            scheduler = pendingTimer.timer().scheduler(expired::incrementAndGet);
        }

        Object addShortTask() {
            while (added - expired.get() >= IN_FLIGHT_LIMIT) {
                LockSupport.parkNanos(FULL_WINDOW_PARK_NANOS);
            }
            added++;
            return scheduler.add(EXPIRY_DELAY_MS);
        }
    }
}
