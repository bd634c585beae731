package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.Waits;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.log.PartitionLog;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.MemoryBudget.Kind;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionFetch;
import io.purgatory.demo.broker.server.ReplicaManager.PartitionAppend;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The replica manager in a small memory budget: the logs kept within their share by dropping the
 * oldest batches of the largest log, an append larger than the share refused with
 * {@code KAFKA_STORAGE_ERROR}, parked produces and fetches counted by the partitions they watch,
 * refused past their share and given back when they complete.
 */
class ReplicaManagerBudgetTest {
    private static final long LIMIT = 16 * 4096;
    private static final short ACKS_ALL = -1;
    private final MemoryBudget budget = new MemoryBudget(LIMIT);
    private final ReplicaManager replicaManager = new ReplicaManager(BrokerConfig.builder().port(0).topic("big", 1).topic("small", 1)
            .followers(2).replicaLag(1, 0).build(), budget);
    private final List<List<ProduceResult>> answers = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        replicaManager.close();
    }

    /** One batch of one record of {@code bytes} bytes. */
    private static MemoryRecords batch(int bytes) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[bytes]));
    }

    private DelayedProduce produce(String topic, short acks, MemoryRecords records) {
        PartitionAppend append = PartitionAppend.of(new ProduceResult.Key(topic, null, 0), replicaManager.partition(topic, 0), records);
        return replicaManager.appendRecords(acks, 600_000, List.of(append), answers::add);
    }

    @Test
    void pastTheLogsShareTheLargestLogDropsItsOldestBatchesAndTheSmallOneKeepsItsRecords() {
        produce("small", (short) 1, batch(1000));
        for (int i = 0; i < 60; i++) { // about twice the logs' share
            produce("big", (short) 1, batch(1000));
        }

        assertTrue(answers.stream().allMatch(answer -> answer.get(0).error() == Errors.NONE), "every append taken");
        assertTrue(budget.used(Kind.LOGS) <= budget.shareBytes(Kind.LOGS), budget.used(Kind.LOGS) + " held");
        Partition big = replicaManager.partition("big", 0);
        Partition small = replicaManager.partition("small", 0);
        assertTrue(big.logStartOffset() > 0, "the largest log dropped its oldest");
        assertEquals(0, small.logStartOffset(), "the small log kept its record");
        assertEquals(budget.used(Kind.LOGS), big.heldBytes() + small.heldBytes(), "the budget holds what the logs hold");
    }

    @Test
    void eachAppendLeavesASlackOfTheLogsShareFreeForTheAppendsOfTheOtherHandlersAtOnce() {
        for (int i = 0; i < 50; i++) { // about twice the logs' share
            produce("big", (short) 1, batch(1200));
            long free = budget.shareBytes(Kind.LOGS) - budget.used(Kind.LOGS);
            assertTrue(free >= LIMIT / 64, "after append " + i + " only " + free + " bytes of the logs' share are free");
        }
        assertTrue(answers.stream().allMatch(answer -> answer.get(0).error() == Errors.NONE), "every append taken");
    }

    @Test
    void anAppendLargerThanTheLogsShareGetsKafkaStorageErrorAndAppendsNothing() {
        produce("small", (short) 1, batch(1000));
        MemoryRecords huge = batch((int) budget.shareBytes(Kind.LOGS));
        assertTrue(PartitionLog.heldBytes(huge) > budget.shareBytes(Kind.LOGS));

        produce("big", (short) 1, huge);

        assertEquals(Errors.KAFKA_STORAGE_ERROR, answers.get(1).get(0).error());
        assertEquals(0, replicaManager.partition("big", 0).leaderEndOffset());
        assertEquals(0, replicaManager.partition("small", 0).logStartOffset(), "no log gave way for a batch that cannot fit");
        assertEquals(1, budget.refusals(Kind.LOGS));
    }

    @Test
    void pastTheParkedShareAnAcksAllProduceGetsThrottlingQuotaExceededAndAppendsNothingUntilParkedOnesComplete() {
        replicaManager.followers().stall(1);
        long fits = budget.shareBytes(Kind.PARKED) / ReplicaManager.parkedBytes(1);
        for (int i = 0; i < fits; i++) {
            produce("big", ACKS_ALL, batch(10));
        }
        assertEquals(fits, replicaManager.producePurgatoryMetrics().delayed());
        assertEquals(fits * ReplicaManager.parkedBytes(1), budget.used(Kind.PARKED));

        assertNull(produce("big", ACKS_ALL, batch(10)));

        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED, answers.get(0).get(0).error());
        assertEquals(fits, replicaManager.partition("big", 0).leaderEndOffset(), "the refused produce appended nothing");
        produce("big", (short) 1, batch(10));
        assertEquals(Errors.NONE, answers.get(1).get(0).error(), "acks=1 parks nothing and is served");

        replicaManager.followers().resume(1);
        // every parked produce answered: each gives its room back in its completion, before it answers
        // (the purgatory stops counting it delayed before it runs that completion, on the follower's thread)
        Waits.soon().until(() -> answers.size() == fits + 2);
        assertEquals(0, replicaManager.producePurgatoryMetrics().delayed());
        assertEquals(0, budget.used(Kind.PARKED), "completed produces gave their room back");
    }

    @Test
    void pastTheParkedShareAFetchIsAnsweredAtOnceAndAnAbandonedOneGivesItsRoomBack() {
        Partition big = replicaManager.partition("big", 0);
        List<PartitionFetch> many = java.util.Collections.nCopies(10, new PartitionFetch(big, null, 0, 1 << 20));
        long fetchBytes = ReplicaManager.parkedBytes(10);
        int fits = (int) (budget.shareBytes(Kind.PARKED) / fetchBytes);
        List<DelayedFetch> parked = new CopyOnWriteArrayList<>();
        List<Boolean> answered = new CopyOnWriteArrayList<>();
        for (int i = 0; i < fits; i++) {
            parked.add(replicaManager.fetchMessages(300_000, Integer.MAX_VALUE, 1 << 20, many, (reads, expired) -> answered.add(expired)));
        }
        assertEquals(fits, replicaManager.fetchPurgatoryMetrics().delayed());

        assertNull(replicaManager.fetchMessages(300_000, Integer.MAX_VALUE, 1 << 20, many, (reads, expired) -> answered.add(expired)));

        assertEquals(List.of(false), answered, "answered at once with what is there");
        assertEquals(1, budget.refusals(Kind.PARKED));
        parked.forEach(DelayedFetch::abandon);
        assertEquals(0, budget.used(Kind.PARKED));
        assertEquals(0, replicaManager.fetchPurgatoryMetrics().delayed());
    }
}
