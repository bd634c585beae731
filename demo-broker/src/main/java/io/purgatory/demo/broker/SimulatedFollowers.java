package io.purgatory.demo.broker;

import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower replicas 1..N of every partition, simulated: after each leader append, each
 * follower that is not stalled fetches the new records after a lag drawn uniformly from
 * {@code [lagMs - jitterMs, lagMs + jitterMs]}. A stalled follower fetches nothing; when it resumes
 * it fetches everything the leader has, after one lag. Every {@code replicaLagTimeMaxMs / 2} the
 * ISR of each partition is checked, as Kafka's {@code isr-expiration} task does.
 *
 * <p>Every fetch that moves a follower, and every ISR change, is reported to {@code onProgress}
 * (the broker calls {@code checkAndComplete} for the partition), from the fetcher thread and with no
 * partition lock held.
 *
 * <p>Thread-safe. The stalled flags and the mean lags are atomic arrays (index {@code replicaId - 1});
 * fetches, ISR checks and the stall cycle run on one scheduler thread, {@code replica-fetcher};
 * partition state is guarded by each {@link Partition}.
 */
final class SimulatedFollowers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SimulatedFollowers.class);

    private final List<Partition> partitions;
    private final int followers;
    private final long jitterMs;
    private final Consumer<Partition> onProgress;
    private final AtomicIntegerArray stalled;
    private final AtomicLongArray meanLagMs; // per follower, index replicaId - 1; starts at the configured lag
    private final ScheduledThreadPoolExecutor scheduler;

    SimulatedFollowers(BrokerConfig config, List<Partition> partitions, Consumer<Partition> onProgress) {
        this.partitions = List.copyOf(partitions);
        this.followers = config.followers();
        this.jitterMs = config.replicaLagJitterMs();
        this.onProgress = onProgress;
        this.stalled = new AtomicIntegerArray(followers);
        this.meanLagMs = new AtomicLongArray(followers);
        for (int i = 0; i < followers; i++) {
            meanLagMs.set(i, config.replicaLagMs());
        }
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            final Thread thread = new Thread(runnable, "replica-fetcher");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);

        final long isrCheckMs = Math.max(1, config.replicaLagTimeMaxMs() / 2);
        scheduler.scheduleAtFixedRate(this::checkIsr, isrCheckMs, isrCheckMs, TimeUnit.MILLISECONDS);
        scheduleStalls(config.stalledReplicas(), config.stallMs(), config.healthyMs());
    }

    /** The leader of {@code partition} now has records up to {@code endOffset}. */
    void onAppend(Partition partition, long endOffset) {
        final long appendedAtMs = nowMs();
        for (int replicaId = 1; replicaId <= followers; replicaId++) {
            if (!isStalled(replicaId)) {
                scheduleFetch(partition, replicaId, endOffset, appendedAtMs);
            }
        }
    }

    /** Stops the follower's fetching, for every partition, until {@link #resume}. */
    void stall(int replicaId) {
        checkReplicaId(replicaId);
        if (stalled.compareAndSet(replicaId - 1, 0, 1)) {
            log.info("replica {} stalls: it fetches nothing until it resumes", replicaId);
        }
    }

    /** Lets a stalled follower fetch again; it catches up with every partition after one lag. */
    void resume(int replicaId) {
        checkReplicaId(replicaId);
        if (stalled.compareAndSet(replicaId - 1, 1, 0)) {
            log.info("replica {} resumes fetching", replicaId);
            final long nowMs = nowMs();
            for (Partition partition : partitions) {
                scheduleFetch(partition, replicaId, partition.leaderEndOffset(), nowMs);
            }
        }
    }

    /** Sets a follower's mean fetch lag from its next fetch on; the jitter stays as configured. */
    void setLag(int replicaId, long lagMs) {
        checkReplicaId(replicaId);
        if (lagMs < 0) {
            throw new IllegalArgumentException("a replica lag must be >= 0 ms, was " + lagMs);
        }
        meanLagMs.set(replicaId - 1, lagMs);
        log.info("replica {} now fetches {}±{} ms after each append", replicaId, lagMs, jitterMs);
    }

    /** A follower's mean fetch lag. */
    long lagMs(int replicaId) {
        checkReplicaId(replicaId);
        return meanLagMs.get(replicaId - 1);
    }

    boolean isStalled(int replicaId) {
        return stalled.get(replicaId - 1) == 1;
    }

    /** Stops the fetcher thread; fetches not yet made are dropped. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    private void scheduleStalls(Set<Integer> replicaIds, long stallMs, long healthyMs) {
        replicaIds.forEach(this::checkReplicaId);
        if (replicaIds.isEmpty()) {
            return;
        }
        if (stallMs == 0) {
            replicaIds.forEach(this::stall);
            return;
        }
        final long periodMs = healthyMs + stallMs;
        scheduler.scheduleAtFixedRate(() -> replicaIds.forEach(this::stall), healthyMs, periodMs, TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(() -> replicaIds.forEach(this::resume), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private void scheduleFetch(Partition partition, int replicaId, long endOffset, long leaderHadItAtMs) {
        try {
            scheduler.schedule(() -> fetch(partition, replicaId, endOffset, leaderHadItAtMs), sampleLagMs(replicaId), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the broker is shutting down: followers stop
        }
    }

    private void fetch(Partition partition, int replicaId, long endOffset, long leaderHadItAtMs) {
        if (isStalled(replicaId)) {
            return;
        }
        switch (partition.onFollowerFetch(replicaId, endOffset, leaderHadItAtMs)) {
            case NO_PROGRESS:
                return;
            case REJOINED_ISR:
                log.info("replica {} caught up and rejoined the ISR of {}: ISR {}", replicaId, partition, partition.isr());
                break;
            case ADVANCED:
                break;
        }
        onProgress.accept(partition);
    }

    private void checkIsr() {
        final long nowMs = nowMs();
        final boolean[] fetching = new boolean[followers];
        for (int i = 0; i < followers; i++) {
            fetching[i] = !isStalled(i + 1);
        }
        for (Partition partition : partitions) {
            if (partition.maybeShrinkIsr(nowMs, fetching)) {
                log.info("ISR of {} shrank to {}", partition, partition.isr());
                onProgress.accept(partition);
            }
        }
    }

    private long sampleLagMs(int replicaId) {
        final long lagMs = meanLagMs.get(replicaId - 1);
        final long low = Math.max(0, lagMs - jitterMs);
        final long high = lagMs + jitterMs;
        return low == high ? low : ThreadLocalRandom.current().nextLong(low, high + 1);
    }

    private void checkReplicaId(int replicaId) {
        if (replicaId < 1 || replicaId > followers) {
            throw new IllegalArgumentException("no follower replica " + replicaId + ": followers are 1.." + followers);
        }
    }

    static long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }
}
