package io.purgatory.demo.broker.cluster;

import io.purgatory.demo.broker.log.LogConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An idempotent producer's batches, each sent again and again by several connections at once (as
 * retries after timeouts arrive beside the first copy): every batch is stored once, and every copy
 * is answered with the offsets of the one stored.
 */
class IdempotentAppendStressTest {
    private static final int ROUNDS = 200;
    private static final int SENDERS = 4;
    private static final int BATCHES = 5;
    private static final int RECORDS_PER_BATCH = 3;

    private final ExecutorService senders = Executors.newFixedThreadPool(SENDERS);

    @AfterEach
    void stop() throws InterruptedException {
        senders.shutdownNow();
        senders.awaitTermination(10, TimeUnit.SECONDS);
    }

    private static MemoryRecords batch(int index) {
        SimpleRecord[] records = IntStream.range(0, RECORDS_PER_BATCH)
                .mapToObj(i -> new SimpleRecord(("b" + index + "-" + i).getBytes())).toArray(SimpleRecord[]::new);
        return MemoryRecords.withIdempotentRecords(Compression.NONE, 11, (short) 0, index * RECORDS_PER_BATCH, records);
    }

    @Test
    void everyBatchSentByManyAtOnceIsStoredOnceAndEveryCopyGetsItsOffsets() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Partition partition = new Partition(new TopicPartition("demo", 0), 2, new LogConfig(1, 1 << 20, 1 << 20), 30_000, 0);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Partition.AppendResult>>> sent = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                sent.add(senders.submit(() -> {
                    start.await();
                    List<Partition.AppendResult> results = new ArrayList<>();
                    for (int b = 0; b < BATCHES; b++) {
                        results.add(partition.append(batch(b)));
                    }
                    return results;
                }));
            }
            start.countDown();
            List<Long> stored = new ArrayList<>();
            for (Future<List<Partition.AppendResult>> sender : sent) {
                List<Partition.AppendResult> results = sender.get(30, TimeUnit.SECONDS);
                for (int b = 0; b < BATCHES; b++) {
                    Partition.AppendResult result = results.get(b);
                    assertEquals(Errors.NONE, result.error(), "round " + round + ", batch " + b);
                    assertEquals(result.baseOffset() + RECORDS_PER_BATCH, result.endOffset(), "round " + round + ", batch " + b);
                    if (stored.size() == b) {
                        stored.add(result.baseOffset());
                    }
                    assertEquals(stored.get(b), result.baseOffset(), "round " + round + ": every copy of batch " + b + " answered with one offset");
                }
            }
            assertEquals(BATCHES * RECORDS_PER_BATCH, partition.leaderEndOffset(), "round " + round + ": each batch stored once");
        }
    }
}
