package io.purgatory.demo.broker.log;

import java.nio.BufferUnderflowException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Decides whether one partition's records in a produce request are records a Kafka broker would
 * append, and how many there are, with kafka-clients' own record classes (no parsing or
 * decompression of our own). It follows Kafka's {@code ProduceRequest.validateRecords},
 * {@code UnifiedLog.analyzeAndValidateRecords} and {@code LogValidator} for a leader appending a
 * client's records; the first failing check gives the partition's error:
 *
 * <ol>
 *   <li>no records at all (the field is null or empty) → {@link Errors#INVALID_RECORD};
 *   <li>not exactly one batch, or a batch whose magic is not v2 → {@link Errors#INVALID_RECORD};
 *       zstd below produce v7 → {@link Errors#UNSUPPORTED_COMPRESSION_TYPE};
 *   <li>a batch too short for its header, or whose CRC does not match → {@link Errors#CORRUPT_MESSAGE};
 *   <li>a compression codec kafka-clients does not know (ids 5, 6, 7) → {@link Errors#CORRUPT_MESSAGE}
 *       (Kafka fails the partition with {@code UNKNOWN_SERVER_ERROR} here; corrupt is what it is);
 *   <li>a base offset other than 0, a last offset delta that does not match the record count, a
 *       count not above 0, a control batch, or a producer id without a sequence → {@link Errors#INVALID_RECORD};
 *   <li>walking every record (decompressed as a stream): a record that does not parse, a record
 *       body larger than {@value #MAX_RECORD_BODY_BYTES} bytes, a record whose magic differs from the
 *       batch's, a record whose offset delta is not its position (Kafka rewrites such offsets; we
 *       refuse them), or a batch holding fewer or more records than its header says →
 *       {@link Errors#INVALID_RECORD}; compressed data that does not decompress →
 *       {@link Errors#CORRUPT_MESSAGE} (Kafka: {@code UNKNOWN_SERVER_ERROR}); records adding up to
 *       more than {@value #MAX_UNCOMPRESSED_BATCH_BYTES} bytes uncompressed →
 *       {@link Errors#MESSAGE_TOO_LARGE} (Kafka has no such bound; it stops a decompression bomb).
 * </ol>
 *
 * <p>Timestamps and keys are not checked: the demo's topics are not compacted and accept any
 * create time. The cost is linear in the decompressed size of the batch.
 *
 * <p>Thread-safe: stateless; each call uses its own buffers.
 */
public final class RecordValidator {
    /** Largest uncompressed record body accepted: the broker's default frame limit. */
    static final int MAX_RECORD_BODY_BYTES = 16 * 1024 * 1024;
    /** Most uncompressed bytes one batch may hold, so that a small compressed frame cannot make the broker inflate gigabytes. */
    static final long MAX_UNCOMPRESSED_BATCH_BYTES = 64L * 1024 * 1024;

    /** A partition's verdict: {@link Errors#NONE} and its record count, or the error to answer. */
    public record Result(Errors error, int records) {
        static Result valid(int records) {
            return new Result(Errors.NONE, records);
        }

        static Result invalid(Errors error) {
            return new Result(error, 0);
        }
    }

    private RecordValidator() {
    }

    /** Validates one partition's records, sent in produce {@code version}. */
    public static Result validate(BaseRecords records, short version) {
        if (!(records instanceof MemoryRecords memoryRecords) || memoryRecords.sizeInBytes() == 0) {
            return Result.invalid(Errors.INVALID_RECORD);
        }
        try {
            ProduceRequest.validateRecords(version, memoryRecords);
            MutableRecordBatch batch = memoryRecords.batches().iterator().next();
            batch.ensureValid();
            batch.compressionType(); // an unknown codec id throws here
            Errors batchError = validateBatch(batch);
            if (batchError != Errors.NONE) {
                return Result.invalid(batchError);
            }
            return walkRecords(batch);
        } catch (IllegalArgumentException unknownCodec) {
            return Result.invalid(Errors.CORRUPT_MESSAGE);
        } catch (ApiException e) {
            return Result.invalid(Errors.forException(e));
        }
    }

    /** Kafka's {@code LogValidator.validateBatch} for a client's v2 batch. */
    private static Errors validateBatch(RecordBatch batch) {
        if (batch.baseOffset() != 0) {
            return Errors.INVALID_RECORD;
        }
        long countFromOffsets = batch.lastOffset() - batch.baseOffset() + 1;
        Integer count = batch.countOrNull();
        if (countFromOffsets <= 0 || count == null || count <= 0 || countFromOffsets != count) {
            return Errors.INVALID_RECORD;
        }
        if (batch.isControlBatch()) {
            return Errors.INVALID_RECORD;
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            return Errors.INVALID_RECORD;
        }
        return Errors.NONE;
    }

    /** Reads every record, decompressing as a stream; the count in the header must be what is there. */
    private static Result walkRecords(RecordBatch batch) {
        int expected = batch.countOrNull();
        int walked = 0;
        long uncompressedBytes = 0;
        try (CloseableIterator<Record> iterator = batch.streamingIterator(BufferSupplier.NO_CACHING, MAX_RECORD_BODY_BYTES)) {
            while (iterator.hasNext()) {
                Record record = iterator.next();
                if (!record.hasMagic(batch.magic()) || record.offset() != batch.baseOffset() + walked) {
                    return Result.invalid(Errors.INVALID_RECORD);
                }
                uncompressedBytes += record.sizeInBytes();
                if (uncompressedBytes > MAX_UNCOMPRESSED_BATCH_BYTES) {
                    return Result.invalid(Errors.MESSAGE_TOO_LARGE);
                }
                walked++;
            }
        } catch (InvalidRecordException | BufferUnderflowException e) {
            return Result.invalid(Errors.INVALID_RECORD);
        } catch (RuntimeException undecodable) { // the codec's own exceptions, or KafkaException around them
            return Result.invalid(Errors.CORRUPT_MESSAGE);
        }
        return walked == expected ? Result.valid(walked) : Result.invalid(Errors.INVALID_RECORD);
    }
}
