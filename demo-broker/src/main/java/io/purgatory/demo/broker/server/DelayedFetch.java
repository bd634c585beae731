package io.purgatory.demo.broker.server;

import io.purgatory.DelayedOperation;
import io.purgatory.demo.broker.cluster.Partition;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A fetch waiting, as in Kafka's {@code DelayedFetch}, until its partitions hold at least
 * {@code minBytes} of committed data (below each partition's high watermark) from its fetch
 * offsets, or until {@code max.wait.ms} passes; then it reads whatever is there (possibly nothing)
 * and answers. A partition that can no longer be read at its offset (the log start moved past it:
 * {@code OFFSET_OUT_OF_RANGE}) or at all (its topic was deleted: {@code UNKNOWN_TOPIC_OR_PARTITION})
 * completes it at once, so the client hears the error.
 *
 * <p>It watches in one of two forms (see {@link ReplicaManager#fetchMessages}): a one-partition
 * fetch whose completing high watermark is known watches the partition's {@link TopicPartition}
 * at that position, and {@code advance} tries it only once the high watermark gets there; any other
 * fetch watches {@link #anyProgress(TopicPartition)} of each partition, which every high watermark
 * move tries with {@code checkAndComplete}. The two keys differ so that a {@code checkAndComplete}
 * for the second form never walks fetches of the first.
 *
 * <p>Memory: a parked fetch holds its partitions and offsets, never record data; the data is read
 * when it completes. A fetch whose connection has closed is {@link #abandon abandoned}: it leaves the
 * purgatory at once, and neither reads nor answers.
 *
 * <p>Thread-safe through the purgatory's contract: its one mutable field, {@code conditionMet}, is
 * guarded by the operation's lock, under which {@link #tryComplete} and {@link #onComplete} run
 * (they take each partition's lock briefly); no {@code @GuardedBy}, because that lock is the
 * purgatory's, taken around these calls, not a Java monitor Error Prone can see. The {@link Completion} runs exactly once, on whichever
 * thread completed it, and hears whether the fetch expired; never for an abandoned fetch.
 */
public final class DelayedFetch extends DelayedOperation {
    private final int minBytes;
    private final int maxBytes;
    private final List<PartitionFetch> partitions;
    private final Completion completion;
    private final Runnable done;
    /** True once {@link #tryComplete} found the condition met; false at completion means expired. Under the operation's lock. */
    private boolean conditionMet;

    /** Receives a fetch's reads, once. */
    @FunctionalInterface
    interface Completion {
        /**
         * Answers the fetch.
         *
         * @param reads one per partition, in the fetch's order
         * @param expired true when the fetch was parked and {@code max.wait.ms} passed (or the
         *     purgatory closed) before it could complete
         */
        void complete(List<PartitionRead> reads, boolean expired);
    }

    /** The reason an {@link #abandon abandoned} fetch was cancelled with. */
    private static final Object CONNECTION_CLOSED = new Object();

    /**
     * One partition of a fetch request: the partition and where to read, or the error it gets
     * without reading. Immutable.
     *
     * @param partition the partition, or null when {@code error} is set
     * @param error why the partition is not read, or null
     * @param fetchOffset the first offset wanted
     * @param maxBytes at most this many bytes from this partition (but the first batch of the
     *     response is returned whole)
     */
    record PartitionFetch(Partition partition, Errors error, long fetchOffset, int maxBytes) {
        static PartitionFetch of(Partition partition, long fetchOffset, int maxBytes) {
            return new PartitionFetch(partition, null, fetchOffset, maxBytes);
        }

        static PartitionFetch refused(Errors error) {
            return new PartitionFetch(null, error, -1, 0);
        }
    }

    /**
     * What a fetch read from one partition. Immutable.
     *
     * @param error {@link Errors#NONE} or why nothing was read
     * @param highWatermark the partition's high watermark, -1 with an error
     * @param logStartOffset the partition's log start offset, -1 with an error
     * @param records the batches read, {@link MemoryRecords#EMPTY} when none
     */
    record PartitionRead(Errors error, long highWatermark, long logStartOffset, MemoryRecords records) {
        static PartitionRead failed(Errors error) {
            return new PartitionRead(error, -1, -1, MemoryRecords.EMPTY);
        }
    }

    /** The key that a fetch waiting on {@code partition} in the keys form watches. */
    static Object anyProgress(TopicPartition partition) {
        return new AnyProgress(partition);
    }

    private record AnyProgress(TopicPartition partition) {
    }

    /**
     * @param completion answers the fetch, once, unless its connection closed first
     * @param done runs once when the fetch completes, answered or abandoned: what it held in the memory budget goes back
     */
    DelayedFetch(long maxWaitMs, int minBytes, int maxBytes, List<PartitionFetch> partitions, Completion completion, Runnable done) {
        super(maxWaitMs);
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.partitions = List.copyOf(partitions);
        this.completion = completion;
        this.done = done;
    }

    List<PartitionFetch> partitions() {
        return partitions;
    }

    /**
     * Completes when some partition cannot be read at its offset, or when the bytes below the high
     * watermarks from the fetch offsets, at most each partition's {@code maxBytes}, reach
     * {@code minBytes}.
     */
    @Override
    public boolean tryComplete() {
        long accumulated = 0;
        for (PartitionFetch fetch : partitions) {
            if (fetch.partition() == null) {
                return completeNow();
            }
            long available = fetch.partition().read((log, highWatermark) ->
                    log.inRange(fetch.fetchOffset()) ? log.bytesAvailable(fetch.fetchOffset(), highWatermark, fetch.maxBytes()) : -1, -1L);
            if (available < 0) {
                return completeNow();
            }
            accumulated += available;
        }
        return accumulated >= minBytes && completeNow();
    }

    /** The condition is met: completes the fetch, which then did not expire. */
    private boolean completeNow() {
        conditionMet = true;
        return forceComplete();
    }

    /**
     * Its connection has closed: takes it out of the purgatory now (its watch lists and timer), without
     * reading or answering; a fetch that has completed already is left as it is. On any thread.
     */
    void abandon() {
        cancel(CONNECTION_CLOSED);
    }

    @Override
    public void onComplete() {
        try {
            if (cancelReason() != CONNECTION_CLOSED) {
                completion.complete(read(partitions, maxBytes), !conditionMet);
            }
        } finally {
            done.run();
        }
    }

    @Override
    public void onExpiration() {
        // onComplete answered with what was there; the purgatory counts expiries
    }

    /**
     * Reads each partition, in order, below its high watermark: at most each partition's
     * {@code maxBytes} and {@code maxBytes} in all, except that the first batch found is returned
     * whole (Kafka's {@code minOneMessage}), so a batch bigger than the limits cannot stall a
     * consumer. An offset outside the log gets {@link Errors#OFFSET_OUT_OF_RANGE}, a deleted
     * partition {@link Errors#UNKNOWN_TOPIC_OR_PARTITION}.
     */
    static List<PartitionRead> read(List<PartitionFetch> partitions, int maxBytes) {
        List<PartitionRead> reads = new ArrayList<>(partitions.size());
        long remaining = maxBytes;
        for (PartitionFetch fetch : partitions) {
            if (fetch.partition() == null) {
                reads.add(PartitionRead.failed(fetch.error()));
                continue;
            }
            boolean firstBatchAnyway = remaining == maxBytes;
            int limit = (int) Math.max(0, Math.min(fetch.maxBytes(), remaining));
            PartitionRead read = fetch.partition().read((log, highWatermark) -> log.inRange(fetch.fetchOffset())
                    ? new PartitionRead(Errors.NONE, highWatermark, log.logStartOffset(),
                            log.read(fetch.fetchOffset(), highWatermark, limit, firstBatchAnyway))
                    : PartitionRead.failed(Errors.OFFSET_OUT_OF_RANGE), PartitionRead.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION));
            remaining -= read.records().sizeInBytes();
            reads.add(read);
        }
        return reads;
    }
}
