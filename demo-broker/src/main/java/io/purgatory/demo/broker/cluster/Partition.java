package io.purgatory.demo.broker.cluster;

import io.purgatory.demo.broker.log.PartitionLog;
import io.purgatory.demo.broker.server.DelayedProduce;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One partition as its leader (this broker, replica 0) sees it: the leader's {@link PartitionLog}
 * (whose end offset is the leader's log end offset), each simulated follower's log end offset, and
 * the in-sync replica set (ISR).
 *
 * <p>Invariants: the leader is always in the ISR; a follower's log end offset never exceeds the
 * leader's and never goes back; the high watermark is the smallest log end offset in the ISR.
 * Followers are replicas {@code 1..followers}.
 *
 * <p>ISR membership follows Kafka ({@code Replica.isCaughtUp}): a follower stays in the ISR while its
 * log end offset equals the leader's, however long ago it last fetched, or it has been caught up
 * with the leader within the last {@code replicaLagTimeMaxMs}; it leaves when neither holds, and
 * rejoins once its log end offset reaches the high watermark. "Caught up at time t" means it held
 * everything the leader had at t.
 *
 * <p>The high watermark never goes back: follower end offsets only grow, a follower leaving the
 * ISR can only raise the minimum, and one rejoins only once it has the high watermark. An append
 * moves it only when the ISR is the leader alone; then a produce is done as soon as it is appended,
 * but a parked fetch must hear of it, so {@link #append} reports it.
 *
 * <p>Thread-safe: every field below the constants, and the log, is guarded by {@code this}; readers
 * of the log go through {@link #read}. Methods that change
 * state report what the caller must tell the purgatory (the high watermark moved: {@code advance};
 * the ISR changed: {@code checkAndComplete}), and the caller does so after the method returns,
 * holding no partition lock (so a {@link DelayedProduce} can take this lock inside its own).
 */
public final class Partition {
    public static final int LEADER_ID = 0;

    private final TopicPartition topicPartition;
    private final int minInsyncReplicas;
    private final long replicaLagTimeMaxMs;

    private final PartitionLog log;
    private final long[] followerEndOffset;
    private final long[] lastCaughtUpMs;
    private final boolean[] inIsr;
    private final int[] timesLeftIsr;
    private int isrSize;

    public Partition(TopicPartition topicPartition, int followers, int minInsyncReplicas, long replicaLagTimeMaxMs, long nowMs,
              long retentionBytes) {
        this.topicPartition = topicPartition;
        this.log = new PartitionLog(retentionBytes);
        this.minInsyncReplicas = minInsyncReplicas;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.followerEndOffset = new long[followers];
        this.lastCaughtUpMs = new long[followers];
        this.inIsr = new boolean[followers];
        this.timesLeftIsr = new int[followers];
        Arrays.fill(lastCaughtUpMs, nowMs);
        Arrays.fill(inIsr, true);
        this.isrSize = followers + 1;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    int followers() {
        return followerEndOffset.length;
    }

    /**
     * Appends validated record batches on the leader, copying them; see {@link PartitionLog#append}.
     *
     * @return where they went, and whether the append moved the high watermark (only when the ISR
     *     is the leader alone)
     */
    public synchronized AppendResult append(MemoryRecords records) {
        long highWatermarkBefore = highWatermark();
        long base = log.append(records);
        long highWatermark = highWatermark();
        return new AppendResult(base, log.logEndOffset(), highWatermark > highWatermarkBefore ? highWatermark : FetchResult.NOT_MOVED);
    }

    /**
     * What an append did. Immutable.
     *
     * @param baseOffset the offset of the first appended record
     * @param endOffset the log end offset after the append
     * @param highWatermark the new high watermark, or {@link FetchResult#NOT_MOVED}
     */
    public record AppendResult(long baseOffset, long endOffset, long highWatermark) {
        public boolean highWatermarkMoved() {
            return highWatermark != FetchResult.NOT_MOVED;
        }
    }

    public synchronized long leaderEndOffset() {
        return log.logEndOffset();
    }

    /** Reads the log under this partition's lock; {@code reader} must not take other locks. */
    public synchronized <T> T read(LogReader<T> reader) {
        return reader.read(log, highWatermark());
    }

    /** Reads a partition's log and high watermark, under the partition's lock. */
    public interface LogReader<T> {
        T read(PartitionLog log, long highWatermark);
    }

    public synchronized long followerEndOffset(int replicaId) {
        return followerEndOffset[replicaId - 1];
    }

    /** Whether an acks=-1 produce is refused before append with {@code NOT_ENOUGH_REPLICAS}. */
    public synchronized boolean isrBelowMinimum() {
        return isrSize < minInsyncReplicas;
    }

    /**
     * Where a produce that needs every ISR replica to reach {@code requiredEndOffset} stands, as in
     * Kafka's {@code Partition.checkEnoughReplicasReachOffset}.
     *
     * @return {@code null} while some ISR replica is behind; {@link Errors#NONE} once all are there;
     *     {@link Errors#NOT_ENOUGH_REPLICAS_AFTER_APPEND} if they are but the ISR has shrunk below
     *     {@code min.insync.replicas}
     */
    public synchronized Errors replicationStatus(long requiredEndOffset) {
        if (highWatermark() < requiredEndOffset) {
            return null;
        }
        return isrSize < minInsyncReplicas ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND : Errors.NONE;
    }

    /**
     * A follower fetched: it now holds every record up to {@code endOffset}, which the leader had
     * at {@code leaderHadItAtMs}.
     *
     * @return whether the high watermark moved, and to what, and whether the follower rejoined the
     *     ISR; either may complete parked produces
     */
    public synchronized FetchResult onFollowerFetch(int replicaId, long endOffset, long leaderHadItAtMs) {
        int i = replicaId - 1;
        long highWatermarkBefore = highWatermark();
        if (endOffset > followerEndOffset[i]) {
            followerEndOffset[i] = Math.min(endOffset, log.logEndOffset());
        }
        lastCaughtUpMs[i] = Math.max(lastCaughtUpMs[i], leaderHadItAtMs);
        boolean rejoined = !inIsr[i] && followerEndOffset[i] >= highWatermarkBefore;
        if (rejoined) {
            inIsr[i] = true;
            isrSize++;
        }
        long highWatermark = highWatermark();
        return new FetchResult(highWatermark > highWatermarkBefore ? highWatermark : FetchResult.NOT_MOVED, rejoined);
    }

    /**
     * What a follower fetch changed. Immutable.
     *
     * @param highWatermark the new high watermark, or {@link #NOT_MOVED} when it did not move (the
     *     high watermark never goes back)
     * @param rejoinedIsr whether the follower rejoined the ISR
     */
    public record FetchResult(long highWatermark, boolean rejoinedIsr) {
        static final long NOT_MOVED = -1L;

        public boolean highWatermarkMoved() {
            return highWatermark != NOT_MOVED;
        }
    }

    /**
     * Drops from the ISR every follower that is behind the leader's log end offset and has not been
     * caught up for longer than {@code replicaLagTimeMaxMs}. A follower at the leader's log end
     * offset is caught up now, stalled or not (a stalled follower is fully caught up on an idle
     * partition), as in Kafka.
     *
     * @return whether the ISR shrank
     */
    public synchronized boolean maybeShrinkIsr(long nowMs) {
        boolean shrank = false;
        for (int i = 0; i < inIsr.length; i++) {
            if (followerEndOffset[i] == log.logEndOffset()) {
                lastCaughtUpMs[i] = nowMs;
            }
            if (inIsr[i] && nowMs - lastCaughtUpMs[i] > replicaLagTimeMaxMs) {
                inIsr[i] = false;
                isrSize--;
                timesLeftIsr[i]++;
                shrank = true;
            }
        }
        return shrank;
    }

    /** How many times the follower has been dropped from the ISR. */
    public synchronized int timesLeftIsr(int replicaId) {
        return timesLeftIsr[replicaId - 1];
    }

    /** The ISR's replica ids, leader first. */
    public synchronized List<Integer> isr() {
        List<Integer> isr = new ArrayList<>(isrSize);
        isr.add(LEADER_ID);
        for (int i = 0; i < inIsr.length; i++) {
            if (inIsr[i]) {
                isr.add(i + 1);
            }
        }
        return isr;
    }

    /** This partition's offsets and ISR, read together under its lock. */
    public synchronized PartitionState snapshot() {
        List<Long> followerOffsets = new ArrayList<>(followerEndOffset.length);
        for (long offset : followerEndOffset) {
            followerOffsets.add(offset);
        }
        return new PartitionState(topicPartition.topic(), topicPartition.partition(), log.logEndOffset(), highWatermark(),
                followerOffsets, isr(), minInsyncReplicas);
    }

    /** All replica ids, leader first. */
    public List<Integer> replicas() {
        List<Integer> replicas = new ArrayList<>(followers() + 1);
        for (int id = 0; id <= followers(); id++) {
            replicas.add(id);
        }
        return replicas;
    }

    /** The smallest log end offset in the ISR: what every in-sync replica has, and all a consumer may read. */
    public synchronized long highWatermark() {
        long hw = log.logEndOffset();
        for (int i = 0; i < inIsr.length; i++) {
            if (inIsr[i]) {
                hw = Math.min(hw, followerEndOffset[i]);
            }
        }
        return hw;
    }

    /** The log start offset: retention dropped the records below it. */
    public long logStartOffset() {
        return read((log, highWatermark) -> log.logStartOffset());
    }

    /** Bytes of record batches the log holds. */
    public long logSizeBytes() {
        return read((log, highWatermark) -> log.sizeInBytes());
    }

    @Override
    public String toString() {
        return topicPartition.toString();
    }
}
