package io.purgatory.benchmarks.perf;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.WaitOutcome;
import io.purgatory.Waiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The blocking form against a subclass doing the same thing: {@code --threads} threads each wait, in
 * a loop, for their own partition's high watermark to reach the next offset, and a follower thread
 * moves each partition's high watermark to the offset its thread announced, then advances it. With
 * {@code --form AWAIT} a wait is {@code Waiters.await(partition, offset, 1h)}; with {@code SUBCLASS}
 * it is a {@link DelayedOperation} offered with {@code tryCompleteElseWatchPosition}, whose
 * {@code onComplete} sets a flag and unparks the thread, which parks until the flag is set: the
 * wait a user would write by hand. A thread unparks the follower after announcing its offset; the
 * follower parks when no thread has announced a new one. So a completion costs, in both forms, two
 * unparks and up to two parks besides the purgatory's work. Prints completions per second and CPU
 * (whole process) per completion. Run one form per JVM:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.perf.AwaitHandoff --form AWAIT --threads 4
 * java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.perf.AwaitHandoff --form SUBCLASS --threads 4
 * </pre>
 *
 * <p>Not thread-safe; a command-line main. The threads share the announced offsets and high
 * watermarks through atomic arrays.
 */
@Command(name = "await-handoff", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Waiters.await against a hand-written subclass wait: completions/s and CPU per completion.")
public final class AwaitHandoff implements Callable<Integer> {

    private static final Duration TIMEOUT = Duration.ofHours(1);

    /** How a thread waits. */
    enum Form { AWAIT, SUBCLASS }

    @Option(names = "--form", description = "AWAIT (Waiters.await) or SUBCLASS (a DelayedOperation that unparks the thread).")
    private Form form = Form.AWAIT;

    @Option(names = "--threads", description = "Waiting threads, one partition each.")
    private int threads = 4;

    @Option(names = "--warmup", description = "Unmeasured seconds first.")
    private int warmupSeconds = 3;

    @Option(names = "--duration", description = "Measured seconds.")
    private int durationSeconds = 8;

    private AtomicLongArray announced;
    private AtomicLongArray highWatermarks;
    private final LongAdder completions = new LongAdder();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile Thread follower;

    public static void main(String[] args) {
        System.exit(new CommandLine(new AwaitHandoff()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        announced = new AtomicLongArray(threads);
        highWatermarks = new AtomicLongArray(threads);
        try (Waiters<Integer> waiters = new Waiters<>("await-handoff", highWatermarks::get);
             DelayedOperationPurgatory<Handoff> purgatory = new DelayedOperationPurgatory<>("subclass-handoff")) {
            List<Thread> waiting = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int partition = i;
                Runnable loop = form == Form.AWAIT ? () -> awaitLoop(waiters, partition) : () -> subclassLoop(purgatory, partition);
                waiting.add(new Thread(loop, "waiting-" + i));
            }
            follower = new Thread(() -> follow(waiters, purgatory), "follower");
            follower.start();
            waiting.forEach(Thread::start);
            TimeUnit.SECONDS.sleep(warmupSeconds); // a benchmark's warm-up: the measured window is timed, not awaited
            CpuClock cpu = new CpuClock();
            long cpuStart = cpu.processNanos();
            long done = completions.sum();
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(durationSeconds);
            long elapsed = System.nanoTime() - start;
            long cpuUsed = cpu.processNanos() - cpuStart;
            long measured = completions.sum() - done;
            running.set(false);
            LockSupport.unpark(follower);
            for (int i = 0; i < threads; i++) {
                highWatermarks.set(i, Long.MAX_VALUE);
                waiters.advance(i);
                purgatory.advance(i, Long.MAX_VALUE);
            }
            follower.join();
            for (Thread thread : waiting) {
                thread.join();
            }
            System.out.printf(Locale.ROOT, "%s, %d waiting threads: %s completions/s, CPU per completion %s (process)%n",
                    form, threads, Figures.count(measured * 1e9 / elapsed), Figures.duration((double) cpuUsed / measured));
        }
        return 0;
    }

    private void awaitLoop(Waiters<Integer> waiters, int partition) {
        try {
            for (long offset = 1; running.get(); offset++) {
                announce(partition, offset);
                if (waiters.await(partition, offset, TIMEOUT) == WaitOutcome.REACHED) {
                    completions.increment();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void subclassLoop(DelayedOperationPurgatory<Handoff> purgatory, int partition) {
        for (long offset = 1; running.get(); offset++) {
            announce(partition, offset);
            Handoff handoff = new Handoff(partition, offset);
            purgatory.tryCompleteElseWatchPosition(handoff, partition, offset);
            while (!handoff.done) {
                LockSupport.park(handoff);
            }
            completions.increment();
        }
    }

    private void announce(int partition, long offset) {
        announced.set(partition, offset);
        LockSupport.unpark(follower);
    }

    /** Moves each partition's high watermark to the offset its thread announced, and advances it. */
    private void follow(Waiters<Integer> waiters, DelayedOperationPurgatory<Handoff> purgatory) {
        while (running.get()) {
            boolean moved = false;
            for (int i = 0; i < threads; i++) {
                long wanted = announced.get(i);
                if (highWatermarks.get(i) < wanted) {
                    highWatermarks.set(i, wanted);
                    if (form == Form.AWAIT) {
                        waiters.advance(i);
                    } else {
                        purgatory.advance(i, wanted);
                    }
                    moved = true;
                }
            }
            if (!moved) {
                LockSupport.park(this); // until a thread announces its next offset: no idle spin in the CPU measured
            }
        }
    }

    /** The hand-written wait: completes at its offset and unparks its thread. Thread-safe: {@code done} is volatile. */
    private final class Handoff extends DelayedOperation {
        private final int partition;
        private final long offset;
        private final Thread thread = Thread.currentThread();
        volatile boolean done;

        Handoff(int partition, long offset) {
            super(TIMEOUT.toMillis());
            this.partition = partition;
            this.offset = offset;
        }

        @Override
        public boolean tryComplete() {
            return highWatermarks.get(partition) >= offset && forceComplete();
        }

        @Override
        public void onComplete() {
            done = true;
            LockSupport.unpark(thread);
        }

        @Override
        public void onExpiration() {
        }
    }
}
