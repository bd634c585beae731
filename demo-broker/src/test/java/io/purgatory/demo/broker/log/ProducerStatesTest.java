package io.purgatory.demo.broker.log;

import java.util.stream.IntStream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A log's idempotent producers, as a producer sees them through the log: batches in sequence are
 * appended, a batch sent again is a duplicate answered with its first copy's offsets, a gap or an old
 * epoch is refused, and a producer is counted in the log's memory until the log start passes it.
 */
class ProducerStatesTest {
    private static final long PRODUCER = 7;
    private static final short EPOCH = 0;

    private final CountingMemory memory = new CountingMemory(Long.MAX_VALUE);
    private final PartitionLog log = new PartitionLog(1 << 20, memory);

    /** A batch of {@code count} records from {@code producer} at {@code epoch}, its first sequence {@code sequence}. */
    private static MemoryRecords batch(long producer, short epoch, int sequence, int count) {
        SimpleRecord[] records = IntStream.range(0, count).mapToObj(i -> new SimpleRecord(("v" + i).getBytes())).toArray(SimpleRecord[]::new);
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producer, epoch, sequence, records);
    }

    private static MemoryRecords batch(int sequence, int count) {
        return batch(PRODUCER, EPOCH, sequence, count);
    }

    /** Checks {@code records} and appends them when the check says so: the check. */
    private ProducerStates.Check produce(MemoryRecords records) {
        ProducerStates.Check check = log.checkProducer(records);
        if (check.error() == Errors.NONE && check.duplicateOf() == null) {
            log.append(records);
        }
        return check;
    }

    @Test
    void batchesInSequenceAreAppended() {
        assertEquals(ProducerStates.Check.APPEND, produce(batch(0, 3)));
        assertEquals(ProducerStates.Check.APPEND, produce(batch(3, 2)));
        assertEquals(5, log.logEndOffset());
        assertEquals(1, log.producers());
    }

    @Test
    void aBatchSentAgainIsADuplicateAnsweredWithItsFirstCopysOffsets() {
        produce(batch(0, 3));
        produce(batch(3, 2));

        assertEquals(new ProducerStates.Offsets(0, 2), produce(batch(0, 3)).duplicateOf());
        assertEquals(new ProducerStates.Offsets(3, 4), produce(batch(3, 2)).duplicateOf());
        assertEquals(5, log.logEndOffset(), "nothing appended twice");
    }

    @Test
    void theLastFiveBatchesAreRememberedAndAnOlderOneIsOutOfSequence() {
        for (int sequence = 0; sequence < 6; sequence++) {
            produce(batch(sequence, 1));
        }
        assertEquals(new ProducerStates.Offsets(1, 1), produce(batch(1, 1)).duplicateOf());
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, produce(batch(0, 1)).error());
        assertEquals(6, log.logEndOffset());
    }

    @Test
    void aGapOrAStepBackIsOutOfOrder() {
        produce(batch(0, 2));
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, produce(batch(3, 1)).error(), "a gap");
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, produce(batch(1, 1)).error(), "a step back into the last batch");
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void anOlderEpochIsRefusedAndANewerOneStartsAtSequenceZero() {
        produce(batch(PRODUCER, (short) 1, 0, 2));
        assertEquals(Errors.INVALID_PRODUCER_EPOCH, produce(batch(PRODUCER, (short) 0, 2, 1)).error());
        assertEquals(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, produce(batch(PRODUCER, (short) 2, 5, 1)).error());

        assertEquals(ProducerStates.Check.APPEND, produce(batch(PRODUCER, (short) 2, 0, 2)));
        assertNull(produce(batch(PRODUCER, (short) 2, 2, 1)).duplicateOf(), "the older epoch's batches are forgotten");
        assertEquals(5, log.logEndOffset());
    }

    @Test
    void aProducerTheLogDoesNotKnowMayStartAtAnySequence() {
        assertEquals(ProducerStates.Check.APPEND, produce(batch(42, 1)));
    }

    @Test
    void theSequenceWrapsAfterItsLargestValue() {
        produce(batch(Integer.MAX_VALUE - 1, 2));
        assertEquals(ProducerStates.Check.APPEND, produce(batch(0, 1)));
    }

    @Test
    void eachProducerIsHeldInTheLogsMemoryUntilTheLogStartPassesItsLastBatch() {
        MemoryRecords first = batch(1, EPOCH, 0, 1);
        MemoryRecords second = batch(2, EPOCH, 0, 1);
        produce(first);
        produce(second);
        produce(batch(1, EPOCH, 1, 1)); // producer 1's last batch is now at offset 2
        long batches = 3 * ((long) first.sizeInBytes() + PartitionLog.BATCH_OVERHEAD_BYTES);
        assertEquals(batches + 2 * ProducerStates.PRODUCER_BYTES, memory.held());
        assertEquals(memory.held(), log.heldBytes());

        log.deleteRecordsBefore(2); // past producer 2's only batch, not past producer 1's last
        assertEquals(1, log.producers());
        assertEquals(first.sizeInBytes() + PartitionLog.BATCH_OVERHEAD_BYTES + ProducerStates.PRODUCER_BYTES, memory.held());
        assertEquals(ProducerStates.Check.APPEND, produce(batch(2, EPOCH, 0, 1)), "producer 2 forgotten: its batch is new again");

        log.clear();
        assertEquals(0, memory.held());
        assertEquals(0, log.producers());
    }

    @Test
    void retentionAndDroppingForTheBudgetForgetTheProducersTheyPass() {
        PartitionLog small = new PartitionLog(1, memory);
        small.append(batch(1, EPOCH, 0, 1));
        small.append(batch(2, EPOCH, 0, 1)); // retention drops producer 1's batch
        assertEquals(1, small.producers());
        long held = memory.held();
        assertEquals(held, small.dropOldest(1), "the last batch and its producer given back");
        assertEquals(0, small.producers());
        assertEquals(0, memory.held());
    }
}
