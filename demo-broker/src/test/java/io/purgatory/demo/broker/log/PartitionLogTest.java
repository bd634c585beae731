package io.purgatory.demo.broker.log;

import io.purgatory.demo.broker.WireClient;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-memory log alone: offsets, reads in whole batches, byte counts, the completing high watermark, retention. */
class PartitionLogTest {
    private final PartitionLog log = new PartitionLog(1 << 20);

    private static List<Long> baseOffsets(MemoryRecords records) {
        List<Long> bases = new ArrayList<>();
        for (MutableRecordBatch batch : records.batches()) {
            bases.add(batch.baseOffset());
        }
        return bases;
    }

    @Test
    void appendsGiveBatchesTheirOffsetsAndLeaderEpoch() {
        assertEquals(0, log.append(WireClient.records(3)));
        assertEquals(3, log.append(WireClient.records(2)));
        assertEquals(5, log.logEndOffset());
        MemoryRecords all = log.read(0, 5, Integer.MAX_VALUE, false);
        assertEquals(List.of(0L, 3L), baseOffsets(all));
        for (MutableRecordBatch batch : all.batches()) {
            batch.ensureValid(); // the CRC still holds after the offsets were set
            assertEquals(PartitionLog.LEADER_EPOCH, batch.partitionLeaderEpoch());
        }
    }

    @Test
    void readsStartAtTheBatchHoldingTheOffsetAndStopBelowTheHighWatermark() {
        log.append(WireClient.records(3));
        log.append(WireClient.records(2));
        log.append(WireClient.records(4));
        assertEquals(List.of(3L), baseOffsets(log.read(4, 5, Integer.MAX_VALUE, false)), "offset 4 is in the batch at 3; 5.. not visible");
        assertEquals(List.of(), baseOffsets(log.read(5, 5, Integer.MAX_VALUE, false)));
        assertEquals(List.of(), baseOffsets(log.read(9, 9, Integer.MAX_VALUE, false)), "at the log end: nothing, not the last batch");
    }

    @Test
    void maxBytesStopsAtWholeBatchesButTheFirstComesAnyway() {
        log.append(WireClient.records(3));
        log.append(WireClient.records(3));
        int batch = (int) log.sizeInBytes() / 2;
        assertEquals(List.of(0L), baseOffsets(log.read(0, 6, batch + batch / 2, false)));
        assertEquals(List.of(), baseOffsets(log.read(0, 6, 10, false)));
        assertEquals(List.of(0L), baseOffsets(log.read(0, 6, 10, true)), "the first batch, whole, past the limit");
    }

    @Test
    void bytesAvailableAndTheCompletingHighWatermark() {
        log.append(WireClient.records(3));
        log.append(WireClient.records(3));
        int batch = (int) log.sizeInBytes() / 2;
        assertEquals(0, log.bytesAvailable(0, 0, Integer.MAX_VALUE));
        assertEquals(batch, log.bytesAvailable(0, 3, Integer.MAX_VALUE));
        assertEquals(2L * batch, log.bytesAvailable(1, 6, Integer.MAX_VALUE));
        assertEquals(100, log.bytesAvailable(0, 6, 100), "at most the partition's max bytes");

        assertEquals(3, log.highWatermarkForBytes(0, 1, Integer.MAX_VALUE), "the first batch is enough");
        assertEquals(6, log.highWatermarkForBytes(0, batch + 1, Integer.MAX_VALUE), "the second one is needed");
        assertEquals(7, log.highWatermarkForBytes(6, 1, Integer.MAX_VALUE), "at the log end: any next batch will do");
        assertEquals(-1, log.highWatermarkForBytes(0, 3 * batch, Integer.MAX_VALUE), "depends on batches not produced yet");
        assertEquals(-1, log.highWatermarkForBytes(0, 200, 100), "more than the partition's max bytes can ever count");
    }

    @Test
    void retentionDropsTheOldestWholeBatchesAndMovesTheLogStart() {
        PartitionLog small = new PartitionLog(300);
        for (int i = 0; i < 10; i++) {
            small.append(WireClient.records(2));
        }
        assertTrue(small.sizeInBytes() <= 300, small.sizeInBytes() + " bytes");
        assertTrue(small.logStartOffset() > 0 && small.logStartOffset() % 2 == 0);
        assertFalse(small.inRange(small.logStartOffset() - 1));
        assertTrue(small.inRange(small.logStartOffset()));
        assertEquals(small.logStartOffset(), baseOffsets(small.read(small.logStartOffset(), 20, Integer.MAX_VALUE, false)).get(0));

        PartitionLog tiny = new PartitionLog(1);
        tiny.append(WireClient.records(5));
        tiny.append(WireClient.records(5));
        assertEquals(5, tiny.logStartOffset(), "the newest batch stays, whatever the limit");
        assertEquals(10, tiny.logEndOffset());
    }

    @Test
    void eachBatchHoldsItsBytesAndOverheadInTheLogsMemoryUntilItIsDropped() {
        CountingMemory memory = new CountingMemory(Long.MAX_VALUE);
        PartitionLog counted = new PartitionLog(1 << 20, memory);
        MemoryRecords three = WireClient.records(3);
        long threeHeld = three.sizeInBytes() + PartitionLog.BATCH_OVERHEAD_BYTES;
        assertEquals(threeHeld, PartitionLog.heldBytes(three));

        counted.append(three);
        counted.append(WireClient.records(2));
        long bothHeld = threeHeld + WireClient.records(2).sizeInBytes() + PartitionLog.BATCH_OVERHEAD_BYTES;
        assertEquals(bothHeld, memory.held());
        assertEquals(bothHeld, counted.heldBytes());

        counted.deleteRecordsBefore(3); // drops the first batch
        assertEquals(bothHeld - threeHeld, memory.held());
        counted.clear();
        assertEquals(0, memory.held());
        assertEquals(0, counted.heldBytes());
    }

    @Test
    void retentionGivesTheDroppedBatchesMemoryBack() {
        CountingMemory memory = new CountingMemory(Long.MAX_VALUE);
        PartitionLog small = new PartitionLog(1, memory);
        small.append(WireClient.records(3));
        small.append(WireClient.records(2));

        assertEquals(PartitionLog.heldBytes(WireClient.records(2)), memory.held(), "only the newest batch is left");
    }

    @Test
    void anAppendTheMemoryRefusesAppendsNothing() {
        CountingMemory memory = new CountingMemory(PartitionLog.heldBytes(WireClient.records(3)));
        PartitionLog bounded = new PartitionLog(1 << 20, memory);
        assertEquals(0, bounded.append(WireClient.records(3)));

        assertEquals(PartitionLog.NO_ROOM, bounded.append(WireClient.records(1)));

        assertEquals(3, bounded.logEndOffset());
        assertEquals(PartitionLog.heldBytes(WireClient.records(3)), memory.held());
    }

    @Test
    void droppingTheOldestForTheBudgetMayEmptyTheLogAndMovesTheLogStartToItsEnd() {
        CountingMemory memory = new CountingMemory(Long.MAX_VALUE);
        PartitionLog counted = new PartitionLog(1 << 20, memory);
        counted.append(WireClient.records(3));
        counted.append(WireClient.records(2));

        long freed = counted.dropOldest(1);
        assertEquals(PartitionLog.heldBytes(WireClient.records(3)), freed, "one whole batch");
        assertEquals(3, counted.logStartOffset());

        counted.dropOldest(Long.MAX_VALUE);
        assertEquals(0, memory.held());
        assertEquals(5, counted.logStartOffset());
        assertEquals(5, counted.logEndOffset());
        assertEquals(0, counted.read(5, 5, Integer.MAX_VALUE, true).sizeInBytes());
        assertEquals(5, counted.append(WireClient.records(1)), "offsets go on");
    }
}
