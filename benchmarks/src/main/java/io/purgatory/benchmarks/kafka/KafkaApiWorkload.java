package io.purgatory.benchmarks.kafka;

import io.purgatory.benchmarks.perf.CpuClock;
import io.purgatory.benchmarks.perf.HeapGauge;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.apache.kafka.server.purgatory.DelayedOperation;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One workload written against Kafka's purgatory API only ({@code DelayedOperation},
 * {@code TopicPartitionOperationKey}, {@code tryCompleteElseWatch}, {@code checkAndComplete}, the
 * default {@code SystemTimer}), so that the same class runs on stock kafka-server-common and, with
 * purgatory-kafka's jar ahead of it on the class path, on purgatory-core. {@link KafkaSideBySide} runs
 * it both ways, each in its own JVM. It prints one line of {@code key=value} results.
 *
 * <ul>
 *   <li>{@code throughput}: {@code --threads} drivers offer operations on {@code --keys} random
 *       partitions of 1,000; 80% are completed later by {@code checkAndComplete} on their first key
 *       (each driver keeps 1,000 of them pending), 20% expire after 50 ms. Reports operations per second,
 *       process CPU per operation and expiry lateness p99 (ms after the deadline) over the measured
 *       seconds, after a warm-up.</li>
 *   <li>{@code footprint}: parks {@code --pending} operations (one boolean field each, 1 h delay) on
 *       {@code --keys} random partitions and reports the heap they take per operation, after full GCs,
 *       the operation object included (the same class on both sides).</li>
 *   <li>{@code retention}: purge interval {@code --purge-interval}; {@code --pending} operations, each
 *       holding a 64 KiB payload, watch their own key and two shared ones and are completed through
 *       their own key only (fewer than the purge interval, so no purge runs); reports the heap still
 *       held, after full GCs (KAFKA-19763).</li>
 * </ul>
 *
 * <p>Run: {@code java -cp [purgatory-kafka.jar:]benchmarks/target/benchmarks.jar
 * io.purgatory.benchmarks.kafka.KafkaApiWorkload --mode throughput --keys 3}. Not thread-safe as an
 * object: {@code call()} runs once per JVM.
 */
@Command(name = "kafka-api-workload", mixinStandardHelpOptions = true,
        description = "Kafka's purgatory API under load, on whichever DelayedOperationPurgatory is first on the class path.")
public final class KafkaApiWorkload implements Callable<Integer> {

    private static final int PARTITIONS = 1000;
    private static final int PAYLOAD_BYTES = 64 * 1024;

    @Option(names = "--mode", required = true, description = "throughput, footprint or retention")
    Mode mode;
    @Option(names = "--keys", defaultValue = "1", description = "keys per operation (throughput, footprint)")
    int keys;
    @Option(names = "--threads", defaultValue = "2", description = "driver threads (throughput)")
    int threads;
    @Option(names = "--warmup-seconds", defaultValue = "5")
    int warmupSeconds;
    @Option(names = "--seconds", defaultValue = "10", description = "measured seconds (throughput)")
    int seconds;
    @Option(names = "--pending", defaultValue = "1000000", description = "operations parked (footprint, retention)")
    int pending;
    @Option(names = "--purge-interval", defaultValue = "1000", description = "the purgatory's purge interval")
    int purgeInterval;

    /** What the workload measures. */
    enum Mode { throughput, footprint, retention }

    /** A Kafka operation of the kind a broker parks: completes when its condition is set. */
    static final class BenchOp extends DelayedOperation {
        final List<TopicPartitionOperationKey> keys;
        volatile boolean ready;
        private final long deadlineNanos;
        private final Recorder lateness;
        byte[] payload;

        BenchOp(long delayMs, List<TopicPartitionOperationKey> keys, Recorder lateness) {
            super(delayMs);
            this.keys = keys;
            this.lateness = lateness;
            this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        }

        @Override
        public boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
            if (lateness != null) {
                lateness.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - deadlineNanos)));
            }
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new KafkaApiWorkload()).setParameterExceptionHandler((e, a) -> {
            System.err.println(e.getMessage());
            return 2;
        }).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (keys < 1 || threads < 1 || seconds < 1 || pending < 1 || purgeInterval < 0 || warmupSeconds < 0) {
            System.err.println("keys, threads, seconds and pending must be positive, purge-interval and warmup-seconds not negative");
            return 2;
        }
        String result = switch (mode) {
            case throughput -> throughput();
            case footprint -> footprint();
            case retention -> retention();
        };
        int keysPerOp = mode == Mode.retention ? 3 : keys;
        System.out.println("side=" + side() + " mode=" + mode + " keys=" + keysPerOp + " " + result);
        return 0;
    }

    /** Which purgatory this JVM runs: purgatory-kafka's if its jar is first on the class path, else Kafka's. */
    static String side() {
        String from = DelayedOperationPurgatory.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        return from.contains("purgatory-kafka") ? "module" : "stock";
    }

    private static List<TopicPartitionOperationKey> partitions() {
        List<TopicPartitionOperationKey> all = new ArrayList<>(PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartitionOperationKey("topic", p));
        }
        return all;
    }

    private static List<TopicPartitionOperationKey> pick(List<TopicPartitionOperationKey> all, int n) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (n == 1) {
            return List.of(all.get(random.nextInt(all.size())));
        }
        List<TopicPartitionOperationKey> picked = new ArrayList<>(n);
        while (picked.size() < n) {
            TopicPartitionOperationKey key = all.get(random.nextInt(all.size()));
            if (!picked.contains(key)) {
                picked.add(key);
            }
        }
        return picked;
    }

    private String throughput() throws Exception {
        List<TopicPartitionOperationKey> all = partitions();
        DelayedOperationPurgatory<BenchOp> purgatory = new DelayedOperationPurgatory<>("bench", 0, purgeInterval);
        Recorder lateness = new Recorder(3);
        LongAdder done = new LongAdder();
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        CpuClock cpu = new CpuClock();
        long[] cpuAtMeasure = new long[1];
        List<Thread> drivers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            drivers.add(new Thread(() -> drive(purgatory, all, lateness, done, measureFrom, end), "driver-" + t));
        }
        drivers.forEach(Thread::start);
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(measureFrom - System.nanoTime()));
        cpuAtMeasure[0] = cpu.processNanos();
        lateness.reset();
        for (Thread d : drivers) {
            d.join();
        }
        long cpuNanos = cpu.processNanos() - cpuAtMeasure[0];
        long ops = done.sum();
        long p99Micros = lateness.getIntervalHistogram().getValueAtPercentile(99);
        purgatory.shutdown();
        return String.format(Locale.ROOT, "opsPerSec=%d cpuNsPerOp=%d expiryP99Ms=%.1f",
                ops / seconds, cpuNanos / Math.max(1, ops), p99Micros / 1000.0);
    }

    private void drive(DelayedOperationPurgatory<BenchOp> purgatory, List<TopicPartitionOperationKey> all,
                       Recorder lateness, LongAdder done, long measureFrom, long end) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        BenchOp[] ring = new BenchOp[1000];
        int next = 0;
        long count = 0;
        boolean measuring = false;
        while (true) {
            if ((count & 255) == 0) {
                long now = System.nanoTime();
                if (now - end >= 0) {
                    break;
                }
                if (!measuring && now - measureFrom >= 0) {
                    measuring = true;
                    count = 0;
                }
            }
            boolean expiring = random.nextInt(5) == 0;
            BenchOp op = new BenchOp(expiring ? 50 : 60_000, pick(all, keys), expiring ? lateness : null);
            purgatory.tryCompleteElseWatch(op, op.keys);
            if (!expiring) {
                BenchOp old = ring[next];
                ring[next] = op;
                next = (next + 1) % ring.length;
                if (old != null) {
                    old.ready = true;
                    purgatory.checkAndComplete(old.keys.get(0));
                }
            }
            count++;
            if (measuring && (count & 255) == 0) {
                done.add(256);
            }
        }
    }

    private String footprint() throws Exception {
        List<TopicPartitionOperationKey> all = partitions();
        DelayedOperationPurgatory<BenchOp> purgatory = new DelayedOperationPurgatory<>("footprint", 0, purgeInterval);
        List<List<TopicPartitionOperationKey>> keyLists = new ArrayList<>(pending);
        for (int i = 0; i < pending; i++) {
            keyLists.add(pick(all, keys));
        }
        List<BenchOp> held = new ArrayList<>(pending);
        try (HeapGauge heap = new HeapGauge()) {
            long before = heap.afterFullGc();
            for (int i = 0; i < pending; i++) {
                BenchOp op = new BenchOp(3_600_000, keyLists.get(i), null);
                held.add(op);
                purgatory.tryCompleteElseWatch(op, op.keys);
            }
            long after = heap.afterFullGc();
            int parked = purgatory.numDelayed();
            // the list holding the operations and their key lists were allocated before the first measure
            String result = String.format(Locale.ROOT, "pending=%d numDelayed=%d bytesPerOp=%.1f",
                    pending, parked, (after - before) / (double) pending);
            purgatory.shutdown();
            return result + " held=" + held.size();
        }
    }

    private String retention() throws Exception {
        DelayedOperationPurgatory<BenchOp> purgatory = new DelayedOperationPurgatory<>("retention", 0, purgeInterval);
        TopicPartitionOperationKey shared1 = new TopicPartitionOperationKey("shared", 1);
        TopicPartitionOperationKey shared2 = new TopicPartitionOperationKey("shared", 2);
        try (HeapGauge heap = new HeapGauge()) {
            long before = heap.afterFullGc();
            for (int i = 0; i < pending; i++) {
                TopicPartitionOperationKey own = new TopicPartitionOperationKey("own", i);
                BenchOp op = new BenchOp(3_600_000, List.of(own, shared1, shared2), null);
                op.payload = new byte[PAYLOAD_BYTES];
                purgatory.tryCompleteElseWatch(op, op.keys);
                op.ready = true;
                purgatory.checkAndComplete(own);
            }
            // both timers unlink a cancelled expiry within a few ms (purgatory-core's within 10 ticks): let them
            Thread.sleep(200);
            long after = heap.afterFullGc();
            String result = String.format(Locale.ROOT, "completed=%d purgeInterval=%d watched=%d retainedBytes=%d retainedPerOp=%.0f",
                    pending, purgeInterval, purgatory.watched(), after - before, (after - before) / (double) pending);
            purgatory.shutdown();
            return result;
        }
    }
}
