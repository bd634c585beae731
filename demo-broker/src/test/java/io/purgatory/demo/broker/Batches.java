package io.purgatory.demo.broker;

import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.apache.kafka.common.utils.internals.Crc32C;

/**
 * Record batches broken the way a hostile client breaks them, from batches kafka-clients built: a
 * batch whose bytes change gets a fresh CRC, so that only checks beyond the CRC can catch it; and
 * the test's own verdict on whether a batch is one Kafka would append. Stateless; thread-safe.
 */
public final class Batches {
    static final int ATTRIBUTES_OFFSET = 21;
    static final int RECORDS_OFFSET = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;

    private Batches() {
    }

    /** A copy of a one-batch {@code records}'s bytes. */
    static ByteBuffer copy(MemoryRecords records) {
        ByteBuffer source = records.buffer();
        ByteBuffer copy = ByteBuffer.allocate(source.remaining());
        copy.put(source.duplicate()).flip();
        return copy;
    }

    /** Recomputes the CRC of the batch at {@code start} of {@code buffer} (absolute positions), as a sender would. */
    static void refreshCrc(ByteBuffer buffer, int start) {
        int length = buffer.getInt(start + 8) + 12; // the batch length field counts what follows it
        int covered = Math.min(length, buffer.limit() - start) - ATTRIBUTES_OFFSET;
        if (covered > 0) {
            buffer.putInt(start + DefaultRecordBatch.CRC_OFFSET, (int) Crc32C.compute(buffer, start + ATTRIBUTES_OFFSET, covered));
        }
    }

    /** The batch with its bytes changed by {@code change} and a fresh CRC. */
    static MemoryRecords rewritten(MemoryRecords records, java.util.function.Consumer<ByteBuffer> change) {
        ByteBuffer bytes = copy(records);
        change.accept(bytes);
        refreshCrc(bytes, 0);
        return MemoryRecords.readableRecords(bytes);
    }

    /** The batch claiming compression codec {@code id} (0 to 7), CRC fresh. */
    static MemoryRecords withCodec(MemoryRecords records, int id) {
        return rewritten(records, b -> b.putShort(ATTRIBUTES_OFFSET, (short) ((b.getShort(ATTRIBUTES_OFFSET) & ~7) | id)));
    }

    /**
     * Whether {@code records} is one v2 batch a Kafka leader would append from a client, judged
     * with kafka-clients alone: valid CRC, known codec, base offset 0, header count matching the
     * offsets and the records actually there, every record readable, not a control batch, and no
     * zstd before produce v7.
     */
    static boolean appendable(MemoryRecords records, short produceVersion) {
        try {
            Iterator<MutableRecordBatch> batches = records.batches().iterator();
            if (!batches.hasNext()) {
                return false;
            }
            MutableRecordBatch batch = batches.next();
            if (batches.hasNext() || batch.magic() != RecordBatch.MAGIC_VALUE_V2 || !batch.isValid()) {
                return false;
            }
            if (batch.compressionType() == CompressionType.ZSTD && produceVersion < 7) {
                return false;
            }
            Integer count = batch.countOrNull();
            if (batch.baseOffset() != 0 || count == null || count <= 0 || batch.lastOffset() + 1 != count || batch.isControlBatch()
                    || batch.hasProducerId() && batch.baseSequence() < 0) {
                return false;
            }
            int seen = 0;
            try (CloseableIterator<Record> iterator = batch.streamingIterator(BufferSupplier.NO_CACHING, 1 << 20)) {
                while (iterator.hasNext()) {
                    Record record = iterator.next();
                    record.ensureValid();
                    if (record.offset() != seen) {
                        return false;
                    }
                    seen++;
                }
            }
            return seen == count;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
