package io.purgatory.demo.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;

/**
 * One partition's log, in memory: the record batches as produced, each in its own buffer, keyed by
 * base offset. {@link #append} copies a produce's batches out of the request, gives them their
 * offsets with kafka-clients' {@link MutableRecordBatch#setLastOffset} (and leader epoch 0, the one
 * metadata reports), and drops the oldest batches while the log holds more than
 * {@code retentionBytes}, moving the log start offset. The newest batch always stays, so the log
 * holds at most {@code retentionBytes} plus one batch (a batch is bounded by the request frame
 * limit), whatever clients send. {@code retentionBytes} may change at runtime
 * ({@link #setRetentionBytes}, a topic's {@code retention.bytes}); the log is trimmed at once.
 *
 * <p>{@link #deleteRecordsBefore} moves the log start offset to any offset up to the log end (a
 * {@code DeleteRecords} request), as Kafka's {@code maybeIncrementLogStartOffset}: the log start
 * offset may then lie inside a batch, which stays until the log start passes its end; reads and
 * lookups see nothing below the log start offset.
 *
 * <p>Reads take whole batches: a read from offset {@code o} starts with the batch containing
 * {@code o} (clients skip the records before their fetch offset, as with Kafka), and a byte count
 * "from {@code o}" is counted from that batch's start, as Kafka's {@code positionDiff} does.
 *
 * <p>Idempotent producers: the log keeps each producer's recent batches ({@link ProducerStates});
 * {@link #checkProducer} tells a batch sent again after a timeout, which is not to be appended, from
 * one out of sequence, which is refused.
 *
 * <p>Memory: each batch held counts its bytes plus {@link #BATCH_OVERHEAD_BYTES} (the buffer, the
 * batch view and the map entry around it), and each producer kept
 * {@value ProducerStates#PRODUCER_BYTES}, in the {@link LogMemory} the log is given. An append that
 * the memory refuses appends nothing ({@link #NO_ROOM}); every batch dropped (retention,
 * {@link #deleteRecordsBefore}, {@link #dropOldest}, {@link #clear}) gives its bytes back, and so
 * does every producer forgotten once the log start offset passes its last batch. Invariant:
 * {@code heldBytes} is {@code sizeInBytes} plus the overhead of each batch held plus each
 * producer's, and is what the log holds in its {@code LogMemory}.
 *
 * <p>Not thread-safe: its {@code Partition} owns it and calls it only under the partition's lock,
 * which guards {@code batches}, {@code producers}, {@code sizeInBytes}, {@code heldBytes},
 * {@code logStartOffset} and {@code logEndOffset}. A batch's buffer is never written after {@link #append} returns, so the
 * {@link MemoryRecords} that reads return may be used after the lock is released.
 */
public final class PartitionLog {
    /** The leader epoch of every batch this log holds: the one metadata reports. */
    public static final int LEADER_EPOCH = 0;
    /** What {@link #append} returns when the {@link LogMemory} has no room for the batches. */
    public static final long NO_ROOM = -1L;
    /**
     * Heap a held batch takes beyond its bytes, as counted in the {@link LogMemory}: the heap
     * buffer's array header and {@code ByteBuffer}, the {@code DefaultRecordBatch} view, the tree
     * map's entry and its boxed key (about 150 bytes measured on a 64-bit JVM with compressed oops),
     * rounded up.
     */
    public static final int BATCH_OVERHEAD_BYTES = 192;

    private long retentionBytes;
    private final LogMemory memory;
    private final NavigableMap<Long, MutableRecordBatch> batches = new TreeMap<>();
    private final ProducerStates producers = new ProducerStates();
    private long sizeInBytes;
    private long heldBytes;
    private long logStartOffset;
    private long logEndOffset;

    /** A log that counts its memory nowhere. */
    public PartitionLog(long retentionBytes) {
        this(retentionBytes, LogMemory.UNBOUNDED);
    }

    /** A log that holds its batches' memory in {@code memory}. */
    public PartitionLog(long retentionBytes, LogMemory memory) {
        this.retentionBytes = retentionBytes;
        this.memory = memory;
    }

    /** The heap {@code records}' batches would take in a log, as its {@link LogMemory} counts it. */
    public static long heldBytes(MemoryRecords records) {
        long bytes = 0;
        for (MutableRecordBatch batch : records.batches()) {
            bytes += batch.sizeInBytes() + BATCH_OVERHEAD_BYTES;
        }
        return bytes;
    }

    /**
     * Appends validated v2 batches (the caller checked them; produce v3+ carries nothing else),
     * copying each out of {@code records}, which the caller may release afterwards.
     *
     * @return the base offset of the first appended record (the new log end offset is
     *     {@link #logEndOffset()}), or {@link #NO_ROOM}, appending nothing, when the log's
     *     {@link LogMemory} refuses the batches' bytes
     */
    public long append(MemoryRecords records) {
        long held = heldBytes(records) + (long) ProducerStates.PRODUCER_BYTES * producers.adding(records.batches());
        if (!memory.tryHold(held)) {
            return NO_ROOM;
        }
        heldBytes += held;
        long base = logEndOffset;
        for (MutableRecordBatch produced : records.batches()) {
            ByteBuffer copy = ByteBuffer.allocate(produced.sizeInBytes());
            produced.writeTo(copy);
            copy.flip();
            MutableRecordBatch batch = MemoryRecords.readableRecords(copy).batches().iterator().next();
            batch.setLastOffset(logEndOffset + (produced.lastOffset() - produced.baseOffset()));
            batch.setPartitionLeaderEpoch(LEADER_EPOCH);
            batches.put(batch.baseOffset(), batch);
            sizeInBytes += batch.sizeInBytes();
            logEndOffset = batch.lastOffset() + 1;
            producers.appended(batch);
        }
        enforceRetention();
        return base;
    }

    /**
     * What {@code records} (validated batches) are to their idempotent producers' state
     * ({@link ProducerStates}): to be appended, a duplicate of a batch in the log, or refused with
     * an error; the first batch that is not to be appended tells. Changes nothing.
     */
    public ProducerStates.Check checkProducer(MemoryRecords records) {
        for (MutableRecordBatch batch : records.batches()) {
            ProducerStates.Check check = producers.check(batch);
            if (check.error() != Errors.NONE || check.duplicateOf() != null) {
                return check;
            }
        }
        return ProducerStates.Check.APPEND;
    }

    /** Idempotent producers kept now (each with a batch in the log). */
    public int producers() {
        return producers.size();
    }

    /** Forgets the producers whose last batch is below the log start offset; the bytes given back. */
    private long forgetProducers() {
        long released = (long) ProducerStates.PRODUCER_BYTES * producers.forgetBefore(logStartOffset);
        heldBytes -= released;
        memory.release(released);
        return released;
    }

    /** Sets {@code retention.bytes} and drops the oldest batches beyond it now. */
    public void setRetentionBytes(long retentionBytes) {
        this.retentionBytes = retentionBytes;
        enforceRetention();
    }

    private void enforceRetention() {
        while (sizeInBytes > retentionBytes && batches.size() > 1) {
            dropFirst();
            logStartOffset = Math.max(logStartOffset, batches.firstKey());
        }
        forgetProducers();
    }

    /**
     * Drops the oldest batches, the newest too if need be, until at least {@code bytes} of the
     * {@link LogMemory} are given back or the log is empty; the log start offset moves past them
     * (to the log end offset when the log is left empty). The broker does it to make room in its
     * memory budget, largest logs first.
     *
     * @return the bytes given back
     */
    public long dropOldest(long bytes) {
        long released = 0;
        while (released < bytes && !batches.isEmpty()) {
            released += dropFirst();
        }
        logStartOffset = Math.max(logStartOffset, batches.isEmpty() ? logEndOffset : batches.firstKey());
        return released + forgetProducers();
    }

    /** Drops the oldest batch and gives its memory back; how much that was. */
    private long dropFirst() {
        MutableRecordBatch dropped = batches.pollFirstEntry().getValue();
        sizeInBytes -= dropped.sizeInBytes();
        long held = dropped.sizeInBytes() + BATCH_OVERHEAD_BYTES;
        heldBytes -= held;
        memory.release(held);
        return held;
    }

    /**
     * Moves the log start offset up to {@code offset} (never back) and drops the batches that end
     * below it.
     *
     * @param offset at most the log end offset
     * @return whether the log start offset moved
     */
    public boolean deleteRecordsBefore(long offset) {
        if (offset > logEndOffset) {
            throw new IllegalArgumentException("offset " + offset + " is past the log end offset " + logEndOffset);
        }
        if (offset <= logStartOffset) {
            return false;
        }
        logStartOffset = offset;
        while (!batches.isEmpty() && batches.firstEntry().getValue().lastOffset() < offset) {
            dropFirst();
        }
        forgetProducers();
        return true;
    }

    /** Drops every batch (the partition is deleted), giving their memory back; the offsets stay as they were. */
    public void clear() {
        batches.clear();
        producers.clear();
        sizeInBytes = 0;
        memory.release(heldBytes);
        heldBytes = 0;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    /** Bytes the log holds. */
    public long sizeInBytes() {
        return sizeInBytes;
    }

    /** What the log holds in its {@link LogMemory}: its bytes plus each batch's overhead. */
    public long heldBytes() {
        return heldBytes;
    }

    /** Whether {@code offset} can be read: from the log start offset to the log end offset, both included. */
    public boolean inRange(long offset) {
        return offset >= logStartOffset && offset <= logEndOffset;
    }

    /**
     * The batches from the one containing {@code offset} up to {@code upTo} (exclusive; batches are
     * never split, so only batches that end below it), at most {@code maxBytes} of them, but always
     * the first one when {@code firstBatchAnyway} (Kafka returns at least one whole batch so that a
     * batch larger than the limit cannot block a consumer).
     *
     * @param offset an offset {@link #inRange in range}
     */
    public MemoryRecords read(long offset, long upTo, int maxBytes, boolean firstBatchAnyway) {
        List<MutableRecordBatch> taken = new ArrayList<>();
        long bytes = 0;
        for (MutableRecordBatch batch : from(offset).values()) {
            if (batch.lastOffset() >= upTo || (bytes + batch.sizeInBytes() > maxBytes && !(taken.isEmpty() && firstBatchAnyway))) {
                break;
            }
            taken.add(batch);
            bytes += batch.sizeInBytes();
        }
        if (taken.isEmpty()) {
            return MemoryRecords.EMPTY;
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) bytes);
        taken.forEach(batch -> batch.writeTo(buffer));
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /**
     * Bytes of the batches from the one containing {@code offset} that end below {@code upTo}, at
     * most {@code limit}: what a fetch at {@code offset} would get, as Kafka's {@code DelayedFetch}
     * counts it.
     */
    public long bytesAvailable(long offset, long upTo, long limit) {
        long bytes = 0;
        for (MutableRecordBatch batch : from(offset).values()) {
            if (batch.lastOffset() >= upTo || bytes >= limit) {
                break;
            }
            bytes += batch.sizeInBytes();
        }
        return Math.min(bytes, limit);
    }

    /**
     * The high watermark at which a fetch at {@code offset} sees at least {@code minBytes} (counting
     * at most {@code limit}), if it can be known now: the end of the batch where the batches already
     * in the log reach {@code minBytes}; or, if they do not and any one further batch would (it is
     * at least {@link DefaultRecordBatch#RECORD_BATCH_OVERHEAD} bytes), one past the log end offset.
     *
     * @return that high watermark, or -1 if it depends on batches not yet produced
     */
    public long highWatermarkForBytes(long offset, long minBytes, long limit) {
        long bytes = 0;
        for (MutableRecordBatch batch : from(offset).values()) {
            bytes += batch.sizeInBytes();
            if (Math.min(bytes, limit) >= minBytes) {
                return batch.lastOffset() + 1;
            }
        }
        return Math.min(bytes + DefaultRecordBatch.RECORD_BATCH_OVERHEAD, limit) >= minBytes ? logEndOffset + 1 : -1;
    }

    /**
     * The first record below {@code upTo} whose timestamp is at least {@code timestamp}, as Kafka's
     * {@code fetchOffsetByTimestamp} finds it, or null if there is none.
     */
    public OffsetAndTimestamp offsetForTimestamp(long timestamp, long upTo) {
        for (MutableRecordBatch batch : batches.values()) {
            if (batch.baseOffset() >= upTo) {
                return null;
            }
            if (batch.maxTimestamp() >= timestamp) {
                for (org.apache.kafka.common.record.internal.Record record : batch) {
                    if (record.timestamp() >= timestamp && record.offset() >= logStartOffset) {
                        return record.offset() < upTo ? new OffsetAndTimestamp(record.offset(), record.timestamp()) : null;
                    }
                }
            }
        }
        return null;
    }

    /** The record with the largest timestamp below {@code upTo} (the first such), or null when there is none. */
    public OffsetAndTimestamp offsetOfMaxTimestamp(long upTo) {
        MutableRecordBatch latest = null;
        for (MutableRecordBatch batch : batches.values()) {
            if (batch.lastOffset() >= upTo) {
                break;
            }
            if (latest == null || batch.maxTimestamp() > latest.maxTimestamp()) {
                latest = batch;
            }
        }
        if (latest == null) {
            return null;
        }
        for (org.apache.kafka.common.record.internal.Record record : latest) {
            if (record.timestamp() == latest.maxTimestamp()) {
                return new OffsetAndTimestamp(record.offset(), record.timestamp());
            }
        }
        return new OffsetAndTimestamp(latest.lastOffset(), latest.maxTimestamp());
    }

    /** An offset and its record's timestamp, for {@code ListOffsets}. Immutable. */
    public record OffsetAndTimestamp(long offset, long timestamp) {
    }

    /** The batches from the one containing {@code offset}, or after it when no batch contains it (it is the log end offset). */
    private NavigableMap<Long, MutableRecordBatch> from(long offset) {
        Map.Entry<Long, MutableRecordBatch> containing = batches.floorEntry(offset);
        if (containing == null) {
            return batches;
        }
        return batches.tailMap(containing.getKey(), containing.getValue().lastOffset() >= offset);
    }
}
