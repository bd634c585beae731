package io.purgatory.demo.broker.replication;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower replicas 1..N of every partition, simulated the way Kafka's followers fetch: each
 * follower has at most one fetch in flight per partition, and a fetch takes everything the leader
 * had when it was issued.
 *
 * <p>A fetch issued at time t records the leader's log end offset at t and lands after a lag drawn
 * uniformly from {@code [lagMs - jitterMs, lagMs + jitterMs]}: the follower then holds those
 * records and was caught up at t. If the leader has more by then, the next fetch is issued at once;
 * if not, none is in flight until the next append issues one. So a record appended at t is
 * replicated no earlier than one lag after t (the fetch that carries it is issued at t or later)
 * and, on a follower that keeps up, no later than about two lags after t (the fetch in flight at t
 * lands, the next one carries it). The work is one fetch per follower and partition per lag, however many appends
 * there are. This is Kafka's model: a follower's fetch response carries what the leader has, and
 * the leader learns the follower holds it from the next fetch, a round trip later.
 *
 * <p>A stalled follower fetches nothing: a fetch of its that lands while it is stalled is dropped.
 * When it resumes it issues a fetch for every partition, which brings it up to the leader's end
 * and back into the ISR (on an idle partition too). Every {@code replicaLagTimeMaxMs / 2} the ISR
 * of each partition is checked, as Kafka's {@code isr-expiration} task does.
 *
 * <p>A fetch also carries the leader's log start offset (as Kafka's fetch response does): the
 * follower moves its own log start offset there when the fetch lands. A {@code DeleteRecords} that
 * moves the leader's log start offset issues a fetch ({@link #onLogStartMoved}), as an append does.
 *
 * <p>A fetch that moves a partition's high watermark is reported to
 * {@link Listener#highWatermarkMoved}, one that moves its low watermark to
 * {@link Listener#lowWatermarkMoved}, and a follower leaving or rejoining the ISR to
 * {@link Listener#isrChanged}, on the scheduler's thread, with no partition lock held.
 *
 * <p>Partitions come and go at runtime ({@link #addPartitions}, {@link #removePartitions}, as
 * topics are created and deleted); a partition has as many followers as its replication factor
 * less one, at most {@link #count()}. A fetch of a removed partition is dropped when it lands.
 *
 * <p>Thread-safe. The stalled flags and the mean lags are atomic arrays (index {@code replicaId - 1});
 * each follower's in-flight flag for a partition is an {@link AtomicBoolean}, set by whoever issues
 * its fetch and cleared by the fetch when no next one follows; the fetchers map is a
 * {@link ConcurrentHashMap} (its values never change once put). Fetches, ISR checks and the stall
 * cycle run on the {@link Scheduler}'s one thread ({@code replica-fetcher} in the broker);
 * partition state is guarded by each {@link Partition}.
 */
public final class SimulatedFollowers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SimulatedFollowers.class);

    private final ConcurrentHashMap<Partition, List<FollowerFetcher>> fetchers = new ConcurrentHashMap<>();
    private final int followers;
    private final AtomicLongArray meanLagMs; // per follower, index replicaId - 1; starts at the configured lag
    private final long jitterMs;
    private final Listener listener;
    private final AtomicIntegerArray stalled;
    private final Scheduler scheduler;

    /** What the followers tell the broker; called on the scheduler's thread with no partition lock held. */
    public interface Listener {
        /** A follower fetch moved the partition's high watermark to {@code highWatermark}. */
        void highWatermarkMoved(Partition partition, long highWatermark);

        /** A follower left or rejoined the partition's ISR. */
        void isrChanged(Partition partition);

        /** A follower fetch moved the partition's low watermark (the smallest log start offset in the ISR) to {@code lowWatermark}. */
        void lowWatermarkMoved(Partition partition, long lowWatermark);
    }

    /**
     * Runs the followers' fetches, ISR checks and stall cycle, one task at a time, and tells the
     * time. The broker's is thread-safe; a test's may instead run every task on the one thread that
     * drives it and the followers.
     */
    interface Scheduler extends AutoCloseable {
        long nowMs();

        void schedule(Runnable task, long delayMs);

        void scheduleAtFixedRate(Runnable task, long initialDelayMs, long periodMs);

        /** Stops: tasks not run yet are dropped, and tasks scheduled from now on are ignored. */
        @Override
        void close();
    }

    /** Followers on the broker's {@code replica-fetcher} thread and the system clock. */
    public SimulatedFollowers(BrokerConfig config, List<Partition> partitions, Listener listener) {
        this(config, partitions, listener, new FetcherThread());
    }

    public SimulatedFollowers(BrokerConfig config, List<Partition> partitions, Listener listener, Scheduler scheduler) {
        this.followers = config.followers();
        this.meanLagMs = new AtomicLongArray(followers);
        for (int i = 0; i < followers; i++) {
            meanLagMs.set(i, config.replicaLagMs());
        }
        this.jitterMs = config.replicaLagJitterMs();
        this.listener = listener;
        this.stalled = new AtomicIntegerArray(followers);
        this.scheduler = scheduler;
        addPartitions(partitions);

        long isrCheckMs = Math.max(1, config.replicaLagTimeMaxMs() / 2);
        scheduler.scheduleAtFixedRate(this::checkIsr, isrCheckMs, isrCheckMs);
        scheduleStalls(config.stalledReplicas(), config.stallMs(), config.healthyMs(), config.stallAfterMs());
    }

    /**
     * Starts following new partitions (a topic created, or partitions added to one).
     *
     * @throws IllegalArgumentException if a partition has more followers than {@link #count()}
     */
    public void addPartitions(List<Partition> partitions) {
        for (Partition partition : partitions) {
            if (partition.followers() > followers) {
                throw new IllegalArgumentException(partition + " has " + partition.followers() + " followers, more than the " + followers + " simulated");
            }
            List<FollowerFetcher> perFollower = new ArrayList<>(partition.followers());
            for (int replicaId = 1; replicaId <= partition.followers(); replicaId++) {
                perFollower.add(new FollowerFetcher(partition, replicaId));
            }
            fetchers.put(partition, List.copyOf(perFollower));
        }
    }

    /** Stops following partitions (their topic was deleted): fetches in flight are dropped when they land. */
    public void removePartitions(List<Partition> partitions) {
        partitions.forEach(fetchers::remove);
    }

    /** The leader of {@code partition} appended: each follower that is not stalled and has no fetch in flight issues one. */
    public void onAppend(Partition partition) {
        issueFetches(partition);
    }

    /** The leader of {@code partition} moved its log start offset ({@code DeleteRecords}): the followers fetch to learn it. */
    public void onLogStartMoved(Partition partition) {
        issueFetches(partition);
    }

    private void issueFetches(Partition partition) {
        for (FollowerFetcher fetcher : fetchers.getOrDefault(partition, List.of())) {
            if (!isStalled(fetcher.replicaId)) {
                fetcher.issueUnlessInFlight();
            }
        }
    }

    /** Stops the follower's fetching, for every partition, until {@link #resume}. */
    public void stall(int replicaId) {
        checkReplicaId(replicaId);
        if (stalled.compareAndSet(replicaId - 1, 0, 1)) {
            LOG.info("replica {} stalls: it fetches nothing until it resumes", replicaId);
        }
    }

    /** Lets a stalled follower fetch again: it issues a fetch for every partition, so it catches up after one lag. */
    public void resume(int replicaId) {
        checkReplicaId(replicaId);
        if (stalled.compareAndSet(replicaId - 1, 1, 0)) {
            LOG.info("replica {} resumes fetching", replicaId);
            for (List<FollowerFetcher> perFollower : fetchers.values()) {
                if (replicaId <= perFollower.size()) {
                    perFollower.get(replicaId - 1).issueUnlessInFlight();
                }
            }
        }
    }

    /** Sets a follower's mean fetch lag from its next fetch on; the jitter stays as configured. */
    public void setLag(int replicaId, long lagMs) {
        checkReplicaId(replicaId);
        if (lagMs < 0) {
            throw new IllegalArgumentException("a replica lag must be >= 0 ms, was " + lagMs);
        }
        meanLagMs.set(replicaId - 1, lagMs);
        LOG.info("replica {} now fetches {}±{} ms after each append", replicaId, lagMs, jitterMs);
    }

    /** A follower's mean fetch lag. */
    public long lagMs(int replicaId) {
        checkReplicaId(replicaId);
        return meanLagMs.get(replicaId - 1);
    }

    /** Whether a follower is stalled now. */
    public boolean isStalled(int replicaId) {
        checkReplicaId(replicaId);
        return stalled.get(replicaId - 1) == 1;
    }

    /** Stops the scheduler; fetches not yet landed are dropped. */
    @Override
    public void close() {
        scheduler.close();
    }

    /**
     * One follower's fetching of one partition. Its {@code inFlight} flag is the only state: set by
     * the thread that issues the fetch (an append, a resume, or the fetch before it), cleared by the
     * fetch when no next one follows.
     */
    private final class FollowerFetcher {
        private final Partition partition;
        private final int replicaId;
        private final AtomicBoolean inFlight = new AtomicBoolean();

        FollowerFetcher(Partition partition, int replicaId) {
            this.partition = partition;
            this.replicaId = replicaId;
        }

        void issueUnlessInFlight() {
            if (inFlight.compareAndSet(false, true)) {
                issue();
            }
        }

        /** Issues a fetch of everything the leader has now; the caller has set {@code inFlight}. */
        private void issue() {
            Partition.LeaderOffsets offsets = partition.leaderOffsets();
            long issuedAtMs = scheduler.nowMs();
            scheduler.schedule(() -> land(offsets, issuedAtMs), sampleLagMs(replicaId));
        }

        private void land(Partition.LeaderOffsets fetched, long issuedAtMs) {
            if (!fetchers.containsKey(partition)) {
                inFlight.set(false); // the partition was deleted
                return;
            }
            boolean wasStalled = isStalled(replicaId);
            if (!wasStalled) {
                report(partition.onFollowerFetch(replicaId, fetched.logEndOffset(), fetched.logStartOffset(), issuedAtMs));
                if (leaderMovedSince(fetched)) {
                    issue(); // still in flight: the next fetch follows at once
                    return;
                }
            }
            inFlight.set(false);
            // an append, a log start move or a resume that found this fetch in flight left the next fetch to it
            if (!isStalled(replicaId) && (wasStalled || leaderMovedSince(fetched))) {
                issueUnlessInFlight();
            }
        }

        private boolean leaderMovedSince(Partition.LeaderOffsets fetched) {
            Partition.LeaderOffsets now = partition.leaderOffsets();
            return now.logEndOffset() > fetched.logEndOffset() || now.logStartOffset() > fetched.logStartOffset();
        }

        private void report(Partition.FetchResult result) {
            if (result.rejoinedIsr()) {
                LOG.info("replica {} caught up and rejoined the ISR of {}: ISR {}", replicaId, partition, partition.isr());
                listener.isrChanged(partition);
                return;
            }
            if (result.highWatermarkMoved()) {
                listener.highWatermarkMoved(partition, result.highWatermark());
            }
            if (result.lowWatermarkMoved()) {
                listener.lowWatermarkMoved(partition, result.lowWatermark());
            }
        }
    }

    private void scheduleStalls(Set<Integer> replicaIds, long stallMs, long healthyMs, long stallAfterMs) {
        replicaIds.forEach(this::checkReplicaId);
        if (replicaIds.isEmpty()) {
            return;
        }
        if (stallMs == 0 && stallAfterMs == 0) {
            replicaIds.forEach(this::stall);
            return;
        }
        if (stallMs == 0) {
            scheduler.schedule(() -> replicaIds.forEach(this::stall), stallAfterMs);
            return;
        }
        long periodMs = healthyMs + stallMs;
        scheduler.scheduleAtFixedRate(() -> replicaIds.forEach(this::stall), healthyMs, periodMs);
        scheduler.scheduleAtFixedRate(() -> replicaIds.forEach(this::resume), periodMs, periodMs);
    }

    private void checkIsr() {
        long nowMs = scheduler.nowMs();
        for (Partition partition : fetchers.keySet()) {
            if (partition.maybeShrinkIsr(nowMs)) {
                LOG.info("ISR of {} shrank to {}", partition, partition.isr());
                listener.isrChanged(partition);
            }
        }
    }

    private long sampleLagMs(int replicaId) {
        long lagMs = meanLagMs.get(replicaId - 1);
        long low = Math.max(0, lagMs - jitterMs);
        long high = lagMs + jitterMs;
        return low == high ? low : ThreadLocalRandom.current().nextLong(low, high + 1);
    }

    /** How many follower replicas each partition has; their ids are 1 to this. */
    public int count() {
        return followers;
    }

    private void checkReplicaId(int replicaId) {
        if (replicaId < 1 || replicaId > followers) {
            throw new IllegalArgumentException("no follower replica " + replicaId + ": followers are 1.." + followers);
        }
    }

    /** The system clock the broker's partitions and followers use, in milliseconds. */
    public static long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    /**
     * The broker's scheduler: one daemon thread, {@code replica-fetcher}, and {@link #nowMs()}.
     * Thread-safe ({@link ScheduledThreadPoolExecutor} is).
     */
    private static final class FetcherThread implements Scheduler {
        private final ScheduledThreadPoolExecutor executor;

        FetcherThread() {
            executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "replica-fetcher");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        }

        @Override
        public long nowMs() {
            return SimulatedFollowers.nowMs();
        }

        @Override
        public void schedule(Runnable task, long delayMs) {
            try {
                executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // the broker is shutting down: followers stop
            }
        }

        @Override
        public void scheduleAtFixedRate(Runnable task, long initialDelayMs, long periodMs) {
            try {
                executor.scheduleAtFixedRate(task, initialDelayMs, periodMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // the broker is shutting down
            }
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }
}
