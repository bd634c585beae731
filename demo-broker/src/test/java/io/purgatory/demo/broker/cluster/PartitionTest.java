package io.purgatory.demo.broker.cluster;

import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.cluster.Partition.FetchResult;
import io.purgatory.demo.broker.log.LogConfig;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ISR bookkeeping with explicit times: no clock, no threads. */
class PartitionTest {
    private static final long MAX_LAG_MS = 100;

    private static final FetchResult NOT_MOVED = new FetchResult(FetchResult.NOT_MOVED, false, FetchResult.NOT_MOVED);

    private final Partition partition = new Partition(new TopicPartition("demo", 0), 2, new LogConfig(2, 1 << 20, 1 << 20), MAX_LAG_MS, 0);

    @Test
    void appendsAssignConsecutiveOffsets() {
        assertEquals(0, partition.append(WireClient.records(3)).baseOffset());
        assertEquals(3, partition.append(WireClient.records(1)).baseOffset());
        assertEquals(4, partition.leaderEndOffset());
    }

    @Test
    void aProduceIsDoneWhenEveryIsrReplicaHasItsEndOffset() {
        partition.append(WireClient.records(5));
        assertNull(partition.replicationStatus(5));
        assertEquals(NOT_MOVED, partition.onFollowerFetch(1, 5, 0, 0));
        assertNull(partition.replicationStatus(5), "replica 2 is in the ISR and behind");
        assertEquals(new FetchResult(5, false, FetchResult.NOT_MOVED), partition.onFollowerFetch(2, 5, 0, 0));
        assertEquals(Errors.NONE, partition.replicationStatus(5));
    }

    @Test
    void aFetchReportsTheHighWatermarkOnlyWhenItMoves() {
        partition.append(WireClient.records(10));
        assertEquals(NOT_MOVED, partition.onFollowerFetch(1, 6, 0, 0), "replica 2 holds the high watermark at 0");
        assertEquals(new FetchResult(4, false, FetchResult.NOT_MOVED), partition.onFollowerFetch(2, 4, 0, 0));
        assertEquals(new FetchResult(6, false, FetchResult.NOT_MOVED), partition.onFollowerFetch(2, 10, 0, 0), "now replica 1 holds it");
        assertEquals(NOT_MOVED, partition.onFollowerFetch(2, 10, 0, 1), "a fetch with nothing new");
        assertEquals(new FetchResult(10, false, FetchResult.NOT_MOVED), partition.onFollowerFetch(1, 10, 0, 1));
    }

    @Test
    void aShrinkCountsTheFollowersItDrops() {
        partition.append(WireClient.records(1));
        partition.onFollowerFetch(1, 1, 0, 0);
        partition.maybeShrinkIsr(MAX_LAG_MS + 1);
        assertEquals(0, partition.timesLeftIsr(1));
        assertEquals(1, partition.timesLeftIsr(2));
        partition.onFollowerFetch(2, 1, 0, 200);
        partition.append(WireClient.records(1));
        partition.onFollowerFetch(1, 2, 0, 200);
        partition.maybeShrinkIsr(200 + MAX_LAG_MS + 1);
        assertEquals(2, partition.timesLeftIsr(2), "rejoined, then left again");
    }

    @Test
    void aFetchOfOldOrReorderedDataDoesNotMoveAFollowerBack() {
        partition.append(WireClient.records(10));
        partition.onFollowerFetch(1, 10, 0, 5);
        assertEquals(NOT_MOVED, partition.onFollowerFetch(1, 4, 0, 1));
        assertEquals(10, partition.followerEndOffset(1));
    }

    @Test
    void aFollowerNotCaughtUpForLongerThanTheMaxLagLeavesTheIsrAndProducesCompleteWithoutIt() {
        partition.append(WireClient.records(1));
        partition.onFollowerFetch(1, 1, 0, 0);
        assertFalse(partition.maybeShrinkIsr(MAX_LAG_MS), "exactly the max lag: still in");
        assertTrue(partition.maybeShrinkIsr(MAX_LAG_MS + 1));
        assertEquals(List.of(0, 1), partition.isr());
        assertEquals(Errors.NONE, partition.replicationStatus(1), "ISR of 2 meets min.insync.replicas = 2");
    }

    @Test
    void belowMinInsyncReplicasAProduceIsRefusedOrCompletesWithNotEnoughReplicasAfterAppend() {
        partition.append(WireClient.records(1));
        assertTrue(partition.maybeShrinkIsr(MAX_LAG_MS + 1));
        assertEquals(List.of(0), partition.isr());
        assertTrue(partition.isrBelowMinimum());
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, partition.replicationStatus(1));
    }

    @Test
    void aFollowerAtTheLeadersEndStaysInTheIsrHoweverLongAgoItFetched() {
        partition.append(WireClient.records(3));
        partition.onFollowerFetch(1, 3, 0, 0);
        partition.onFollowerFetch(2, 3, 0, 0);
        assertFalse(partition.maybeShrinkIsr(10 * MAX_LAG_MS), "neither fetched since 0, both hold the leader's end");
        assertFalse(partition.maybeShrinkIsr(100 * MAX_LAG_MS));
        assertEquals(List.of(0, 1, 2), partition.isr());

        partition.append(WireClient.records(1));
        partition.onFollowerFetch(1, 4, 0, 100 * MAX_LAG_MS);
        assertFalse(partition.maybeShrinkIsr(101 * MAX_LAG_MS), "behind since the append: caught up at the last check");
        assertTrue(partition.maybeShrinkIsr(101 * MAX_LAG_MS + 1), "behind, and caught up more than the max lag ago");
        assertEquals(List.of(0, 1), partition.isr());
    }

    @Test
    void aFollowerRejoinsTheIsrWhenItReachesTheHighWatermark() {
        partition.append(WireClient.records(4));
        partition.onFollowerFetch(1, 4, 0, 50);
        partition.maybeShrinkIsr(MAX_LAG_MS + 1);
        assertEquals(List.of(0, 1), partition.isr());

        assertEquals(NOT_MOVED, partition.onFollowerFetch(2, 3, 0, 150));
        assertEquals(List.of(0, 1), partition.isr(), "behind the high watermark 4");
        assertEquals(new FetchResult(FetchResult.NOT_MOVED, true, FetchResult.NOT_MOVED), partition.onFollowerFetch(2, 4, 0, 160));
        assertEquals(List.of(0, 1, 2), partition.isr());
        assertFalse(partition.maybeShrinkIsr(160 + MAX_LAG_MS), "caught up at 160: not dropped again at once");
    }

    @Test
    void aFollowerRejoinsOnAnIdlePartitionWhenItFetchesAgain() {
        partition.append(WireClient.records(1));
        partition.onFollowerFetch(1, 1, 0, 0);
        partition.maybeShrinkIsr(MAX_LAG_MS + 1);
        assertEquals(List.of(0, 1), partition.isr());
        assertEquals(new FetchResult(FetchResult.NOT_MOVED, true, FetchResult.NOT_MOVED), partition.onFollowerFetch(2, 1, 0, 500));
        assertEquals(List.of(0, 1, 2), partition.isr());
    }
}
