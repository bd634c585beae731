package io.purgatory.demo.broker.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.demo.broker.log.LogConfig;
import io.purgatory.demo.broker.log.LogMemory;
import io.purgatory.demo.broker.log.PartitionLog;
import io.purgatory.demo.broker.log.ProducerStates;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

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
 * <p>The low watermark ({@link #lowWatermark()}) is the smallest log start offset in the ISR, as
 * Kafka's {@code lowWatermarkIfLeader} (which takes every live replica; here the ISR, so that a
 * follower out of the ISR cannot hold a {@code DeleteRecords} forever): {@link #deleteRecordsBefore}
 * moves the leader's log start offset at once, and each follower learns it from its next fetch
 * ({@link #onFollowerFetch}), as Kafka's followers learn it from the leader's fetch response.
 *
 * <p>Runtime changes: {@link #configure} applies a topic's changed {@link LogConfig} and the
 * broker's {@code replica.lag.time.max.ms}; {@link #delete} marks the partition deleted (its topic
 * was deleted) and drops its records. A deleted partition appends nothing and answers reads and
 * replication checks with {@link Errors#UNKNOWN_TOPIC_OR_PARTITION}, so an operation that parks on
 * it after the deletion completes at once.
 *
 * <p>Thread-safe: every field below the constants, and the log, is guarded by {@code this}; readers
 * of the log go through {@link #read}. Methods that change
 * state report what the caller must tell the purgatory (the high watermark moved: {@code advance};
 * the ISR changed: {@code checkAndComplete}), and the caller does so after the method returns,
 * holding no partition lock (so a {@code DelayedProduce} can take this lock inside its own).
 */
public final class Partition {
    public static final int LEADER_ID = 0;
    /** The offset a {@code DeleteRecords} names to mean the high watermark (Kafka's {@code DeleteRecordsRequest.HIGH_WATERMARK}). */
    public static final long HIGH_WATERMARK = -1L;

    private final TopicPartition topicPartition;
    private final int followers;

    @GuardedBy("this")
    private LogConfig config;
    @GuardedBy("this")
    private long replicaLagTimeMaxMs;
    @GuardedBy("this")
    private final PartitionLog log;
    @GuardedBy("this")
    private final long[] followerEndOffset;
    @GuardedBy("this")
    private final long[] followerLogStartOffset;
    @GuardedBy("this")
    private final long[] lastCaughtUpMs;
    @GuardedBy("this")
    private final boolean[] inIsr;
    @GuardedBy("this")
    private final int[] timesLeftIsr;
    @GuardedBy("this")
    private int isrSize;
    @GuardedBy("this")
    private boolean deleted;

    /**
     * @param followers follower replicas (ids 1..followers): the replication factor less one
     * @param config the topic's log config
     */
    public Partition(TopicPartition topicPartition, int followers, LogConfig config, long replicaLagTimeMaxMs, long nowMs) {
        this(topicPartition, followers, config, replicaLagTimeMaxMs, nowMs, LogMemory.UNBOUNDED);
    }

    /**
     * @param followers follower replicas (ids 1..followers): the replication factor less one
     * @param config the topic's log config
     * @param memory where the log holds its batches' memory (the broker's budget)
     */
    public Partition(TopicPartition topicPartition, int followers, LogConfig config, long replicaLagTimeMaxMs, long nowMs,
                     LogMemory memory) {
        this.topicPartition = topicPartition;
        this.followers = followers;
        this.log = new PartitionLog(config.retentionBytes(), memory);
        this.config = config;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.followerEndOffset = new long[followers];
        this.followerLogStartOffset = new long[followers];
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

    /** Follower replicas: ids 1 to this. */
    public int followers() {
        return followers;
    }

    /**
     * Appends validated record batches on the leader, copying them; see {@link PartitionLog#append}.
     * Appends nothing, and says why, when the partition is deleted
     * ({@link Errors#UNKNOWN_TOPIC_OR_PARTITION}), a batch is larger than {@code max.message.bytes}
     * ({@link Errors#MESSAGE_TOO_LARGE}, as Kafka's {@code RecordTooLargeException}) or the broker's
     * memory budget has no room for the batches ({@link Errors#KAFKA_STORAGE_ERROR}, Kafka's answer
     * when a log cannot be written for want of space: retriable, the producer sends again), or an
     * idempotent producer's batch is out of sequence or of an old epoch
     * ({@link Errors#OUT_OF_ORDER_SEQUENCE_NUMBER}, {@link Errors#INVALID_PRODUCER_EPOCH}). A batch
     * its idempotent producer sent before, still in the log, is not appended again: the result
     * has the first copy's offsets ({@link PartitionLog#checkProducer}).
     *
     * @return where they went (for a duplicate, where the first copy is), and whether the append
     *     moved the high watermark (only when the ISR is the leader alone)
     */
    public synchronized AppendResult append(MemoryRecords records) {
        if (deleted) {
            return AppendResult.refused(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        for (MutableRecordBatch batch : records.batches()) {
            if (batch.sizeInBytes() > config.maxMessageBytes()) {
                return AppendResult.refused(Errors.MESSAGE_TOO_LARGE);
            }
        }
        ProducerStates.Check producer = log.checkProducer(records);
        if (producer.error() != Errors.NONE) {
            return AppendResult.refused(producer.error());
        }
        if (producer.duplicateOf() != null) { // sent again after a timeout: answered with the first copy's offsets
            return new AppendResult(Errors.NONE, producer.duplicateOf().baseOffset(), producer.duplicateOf().lastOffset() + 1, FetchResult.NOT_MOVED);
        }
        long highWatermarkBefore = highWatermark();
        long base = log.append(records);
        if (base == PartitionLog.NO_ROOM) {
            return AppendResult.refused(Errors.KAFKA_STORAGE_ERROR);
        }
        long highWatermark = highWatermark();
        return new AppendResult(Errors.NONE, base, log.logEndOffset(), highWatermark > highWatermarkBefore ? highWatermark : FetchResult.NOT_MOVED);
    }

    /**
     * What an append did. Immutable.
     *
     * @param error {@link Errors#NONE}, or why nothing was appended
     * @param baseOffset the offset of the first appended record
     * @param endOffset the log end offset after the append
     * @param highWatermark the new high watermark, or {@link FetchResult#NOT_MOVED}
     */
    public record AppendResult(Errors error, long baseOffset, long endOffset, long highWatermark) {
        static AppendResult refused(Errors error) {
            return new AppendResult(error, -1, -1, FetchResult.NOT_MOVED);
        }

        public boolean highWatermarkMoved() {
            return highWatermark != FetchResult.NOT_MOVED;
        }
    }

    /**
     * Applies a changed config: {@code min.insync.replicas} and {@code max.message.bytes} from the
     * next check and append, {@code retention.bytes} at once (the log may drop its oldest batches),
     * {@code replicaLagTimeMaxMs} from the next ISR check. The caller then re-checks the produces
     * parked on this partition ({@code checkAndComplete}), holding no partition lock.
     */
    public synchronized void configure(LogConfig config, long replicaLagTimeMaxMs) {
        this.config = config;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        log.setRetentionBytes(config.retentionBytes());
    }

    public synchronized LogConfig config() {
        return config;
    }

    /**
     * The topic is deleted: drops the records, and from now on appends nothing and answers checks
     * with {@link Errors#UNKNOWN_TOPIC_OR_PARTITION}. The caller then completes what is parked on
     * the partition. Idempotent.
     */
    public synchronized void delete() {
        deleted = true;
        log.clear();
    }

    public synchronized boolean isDeleted() {
        return deleted;
    }

    /**
     * Drops the log's oldest batches, the newest too if need be, until {@code bytes} of memory are
     * given back ({@link PartitionLog#dropOldest}): the broker makes room in its memory budget so.
     *
     * @return the memory given back
     */
    public synchronized long dropOldest(long bytes) {
        return log.dropOldest(bytes);
    }

    /** The memory the log holds in the budget: its bytes plus each batch's overhead. */
    public synchronized long heldBytes() {
        return log.heldBytes();
    }

    /**
     * A {@code DeleteRecords} on the leader, as Kafka's {@code deleteRecordsOnLeader}: moves the log
     * start offset up to {@code offset} ({@code -1}: the high watermark) at once; the followers
     * learn it on their next fetches.
     *
     * @return the offset the log start moved to (or was at already) and the low watermark now; or
     *     {@link Errors#OFFSET_OUT_OF_RANGE} for an offset below -1 or past the high watermark,
     *     {@link Errors#UNKNOWN_TOPIC_OR_PARTITION} when the partition is deleted
     */
    public synchronized DeleteRecordsResult deleteRecordsBefore(long offset) {
        if (deleted) {
            return DeleteRecordsResult.refused(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        long highWatermark = highWatermark();
        long requested = offset == HIGH_WATERMARK ? highWatermark : offset;
        if (requested < 0 || requested > highWatermark) {
            return DeleteRecordsResult.refused(Errors.OFFSET_OUT_OF_RANGE);
        }
        boolean moved = log.deleteRecordsBefore(requested);
        return new DeleteRecordsResult(Errors.NONE, requested, lowWatermark(), moved);
    }

    /**
     * What a {@code DeleteRecords} did on the leader. Immutable.
     *
     * @param error {@link Errors#NONE} or why nothing moved
     * @param requestedOffset the offset the log start offset moved to (the request's, resolved)
     * @param lowWatermark the low watermark after the move
     * @param logStartMoved whether the leader's log start offset moved (the followers must hear)
     */
    public record DeleteRecordsResult(Errors error, long requestedOffset, long lowWatermark, boolean logStartMoved) {
        static DeleteRecordsResult refused(Errors error) {
            return new DeleteRecordsResult(error, -1, -1, false);
        }
    }

    /** The smallest log start offset in the ISR: what every in-sync replica has dropped. */
    public synchronized long lowWatermark() {
        long lowWatermark = log.logStartOffset();
        for (int i = 0; i < inIsr.length; i++) {
            if (inIsr[i]) {
                lowWatermark = Math.min(lowWatermark, followerLogStartOffset[i]);
            }
        }
        return lowWatermark;
    }

    /**
     * Where a {@code DeleteRecords} that needs the low watermark at {@code requiredOffset} stands,
     * as Kafka's {@code DelayedDeleteRecords} checks it.
     *
     * @return {@code null} while some in-sync replica's log start offset is below it;
     *     {@link Errors#NONE} once none is; {@link Errors#UNKNOWN_TOPIC_OR_PARTITION} when deleted
     */
    public synchronized Errors deleteRecordsStatus(long requiredOffset) {
        if (deleted) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return lowWatermark() >= requiredOffset ? Errors.NONE : null;
    }

    public synchronized long leaderEndOffset() {
        return log.logEndOffset();
    }

    /** The leader's log end and log start offsets, read together: what a follower fetch issued now carries. */
    public synchronized LeaderOffsets leaderOffsets() {
        return new LeaderOffsets(log.logEndOffset(), log.logStartOffset());
    }

    /** The leader's log end and log start offsets at one moment. Immutable. */
    public record LeaderOffsets(long logEndOffset, long logStartOffset) {
    }

    /** Reads the log under this partition's lock; {@code reader} must not take other locks. */
    public synchronized <T> T read(LogReader<T> reader) {
        return reader.read(log, highWatermark());
    }

    /** As {@link #read(LogReader)}, but {@code whenDeleted} instead once the partition is deleted. */
    public synchronized <T> T read(LogReader<T> reader, T whenDeleted) {
        return deleted ? whenDeleted : reader.read(log, highWatermark());
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
        return isrSize < config.minInsyncReplicas();
    }

    /**
     * Where a produce that needs every ISR replica to reach {@code requiredEndOffset} stands, as in
     * Kafka's {@code Partition.checkEnoughReplicasReachOffset}.
     *
     * <p>One answer comes earlier than Kafka's: when {@code min.insync.replicas} exceeds the
     * partition's replicas (it was raised so), no ISR can ever satisfy it, so the produce gets
     * {@link Errors#NOT_ENOUGH_REPLICAS_AFTER_APPEND} at once rather than once its replicas have
     * its records, which is when Kafka would give the same answer.
     *
     * @return {@code null} while some ISR replica is behind; {@link Errors#NONE} once all are there;
     *     {@link Errors#NOT_ENOUGH_REPLICAS_AFTER_APPEND} if they are but the ISR has shrunk below
     *     {@code min.insync.replicas}, or if {@code min.insync.replicas} exceeds the replicas;
     *     {@link Errors#UNKNOWN_TOPIC_OR_PARTITION} once the partition is deleted
     */
    public synchronized Errors replicationStatus(long requiredEndOffset) {
        if (deleted) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        int minInsyncReplicas = config.minInsyncReplicas();
        if (highWatermark() < requiredEndOffset) {
            return minInsyncReplicas > followers() + 1 ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND : null;
        }
        return isrSize < minInsyncReplicas ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND : Errors.NONE;
    }

    /**
     * A follower fetched: it now holds every record up to {@code endOffset}, which the leader had
     * at {@code leaderHadItAtMs}, and has moved its log start offset to {@code logStartOffset}, the
     * leader's when the fetch was issued.
     *
     * @return whether the high watermark moved, and to what, whether the follower rejoined the
     *     ISR, and whether the low watermark moved; each may complete parked requests
     */
    public synchronized FetchResult onFollowerFetch(int replicaId, long endOffset, long logStartOffset, long leaderHadItAtMs) {
        int i = replicaId - 1;
        long highWatermarkBefore = highWatermark();
        long lowWatermarkBefore = lowWatermark();
        if (endOffset > followerEndOffset[i]) {
            followerEndOffset[i] = Math.min(endOffset, log.logEndOffset());
        }
        followerLogStartOffset[i] = Math.max(followerLogStartOffset[i], Math.min(logStartOffset, followerEndOffset[i]));
        lastCaughtUpMs[i] = Math.max(lastCaughtUpMs[i], leaderHadItAtMs);
        boolean rejoined = !inIsr[i] && followerEndOffset[i] >= highWatermarkBefore;
        if (rejoined) {
            inIsr[i] = true;
            isrSize++;
        }
        long highWatermark = highWatermark();
        long lowWatermark = lowWatermark();
        return new FetchResult(highWatermark > highWatermarkBefore ? highWatermark : FetchResult.NOT_MOVED, rejoined,
                lowWatermark > lowWatermarkBefore ? lowWatermark : FetchResult.NOT_MOVED);
    }

    /**
     * What a follower fetch changed. Immutable.
     *
     * @param highWatermark the new high watermark, or {@link #NOT_MOVED} when it did not move (the
     *     high watermark never goes back)
     * @param rejoinedIsr whether the follower rejoined the ISR
     * @param lowWatermark the new low watermark, or {@link #NOT_MOVED}
     */
    public record FetchResult(long highWatermark, boolean rejoinedIsr, long lowWatermark) {
        static final long NOT_MOVED = -1L;

        public boolean highWatermarkMoved() {
            return highWatermark != NOT_MOVED;
        }

        public boolean lowWatermarkMoved() {
            return lowWatermark != NOT_MOVED;
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
                log.logStartOffset(), lowWatermark(),
                followerOffsets, isr(), config.minInsyncReplicas());
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
