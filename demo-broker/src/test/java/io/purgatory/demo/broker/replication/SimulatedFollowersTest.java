package io.purgatory.demo.broker.replication;

import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.log.LogConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The follower model on a virtual clock ({@link ManualScheduler}): lag exactly {@value #LAG_MS} ms,
 * {@code replicaLagTimeMaxMs} {@value #MAX_LAG_MS} (ISR checks every 50 ms), two followers, two
 * partitions. What the listener hears is what the broker tells its purgatory.
 */
class SimulatedFollowersTest {
    private static final long LAG_MS = 10;
    private static final long MAX_LAG_MS = 100;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final Partition p0 = partition(0);
    private final Partition p1 = partition(1);
    private final List<String> heard = new ArrayList<>();
    private final List<String> lowWatermarks = new ArrayList<>();
    private SimulatedFollowers followers;

    @AfterEach
    void close() {
        followers.close();
    }

    private static Partition partition(int index) {
        return new Partition(new TopicPartition("demo", index), 2, new LogConfig(2, 1 << 20, 1 << 20), MAX_LAG_MS, 0);
    }

    private void start(BrokerConfig.Builder config) {
        followers = new SimulatedFollowers(config.topic("demo", 2).followers(2).replicaLag(LAG_MS, 0).replicaLagTimeMaxMs(MAX_LAG_MS).build(),
                List.of(p0, p1), new SimulatedFollowers.Listener() {
                    @Override
                    public void highWatermarkMoved(Partition partition, long highWatermark) {
                        heard.add("advance " + partition + " " + highWatermark);
                    }

                    @Override
                    public void isrChanged(Partition partition) {
                        heard.add("checkAndComplete " + partition);
                    }

                    @Override
                    public void lowWatermarkMoved(Partition partition, long lowWatermark) {
                        lowWatermarks.add(partition + " " + lowWatermark);
                    }
                }, scheduler);
    }

    private void append(Partition partition, int records) {
        partition.append(WireClient.records(records));
        followers.onAppend(partition);
    }

    @Test
    void eachFollowerHasOneFetchInFlightPerPartitionHoweverManyAppends() {
        start(BrokerConfig.builder());
        for (int i = 0; i < 3; i++) {
            append(p0, 1);
        }
        assertEquals(2, scheduler.oneShotTasks(), "one fetch per follower");
        scheduler.runUntil(5);
        for (int i = 0; i < 100; i++) {
            append(p0, 1);
        }
        assertEquals(2, scheduler.oneShotTasks(), "appends while a fetch is in flight issue none");

        scheduler.runUntil(LAG_MS);
        assertEquals(1, p0.followerEndOffset(1), "the first fetch took what the leader had when it was issued");
        assertEquals(2, scheduler.oneShotTasks(), "the leader had more: the next fetches are in flight");

        scheduler.runUntil(2 * LAG_MS);
        assertEquals(103, p0.followerEndOffset(1), "the second fetch took everything appended so far");
        assertEquals(103, p0.followerEndOffset(2));
        assertEquals(0, scheduler.oneShotTasks(), "caught up: nothing in flight until the next append");
        assertEquals(List.of("advance demo-0 1", "advance demo-0 103"), heard, "two fetches per follower for 103 appends");
    }

    @Test
    void eachFollowerLearnsTheLeadersLogStartOnItsNextFetchAndTheLowWatermarkWaitsForTheLast() {
        start(BrokerConfig.builder());
        append(p0, 10);
        scheduler.runUntil(LAG_MS);
        assertEquals(10, p0.highWatermark());
        followers.stall(2);

        assertEquals(Errors.NONE, p0.deleteRecordsBefore(6).error());
        assertEquals(6, p0.logStartOffset(), "the leader moves its log start at once");
        followers.onLogStartMoved(p0);
        scheduler.runUntil(2 * LAG_MS);
        assertEquals(0, p0.lowWatermark(), "replica 1 fetched, but the stalled replica 2 still holds offset 0");
        assertEquals(List.of(), lowWatermarks);

        followers.resume(2);
        scheduler.runUntil(3 * LAG_MS);
        assertEquals(6, p0.lowWatermark());
        assertEquals(List.of("demo-0 6"), lowWatermarks, "told once, when the last in-sync replica moved");
    }

    @Test
    void aRecordIsReplicatedNoEarlierThanOneLagAfterItsAppend() {
        start(BrokerConfig.builder());
        append(p0, 1);
        scheduler.runUntil(5);
        append(p0, 1);

        scheduler.runUntil(LAG_MS);
        assertEquals(1, p0.followerEndOffset(1), "the record appended at 5 is not replicated at 10");
        scheduler.runUntil(5 + LAG_MS);
        assertEquals(1, p0.followerEndOffset(1), "its fetch was issued at 10");
        scheduler.runUntil(2 * LAG_MS);
        assertEquals(2, p0.followerEndOffset(1));
        assertEquals(List.of("advance demo-0 1", "advance demo-0 2"), heard);
    }

    @Test
    void aFetchThatDoesNotMoveTheHighWatermarkTellsThePurgatoryNothing() {
        start(BrokerConfig.builder().stallReplica(2));
        for (long t = 0; t < MAX_LAG_MS; t += 5) {
            scheduler.runUntil(t);
            append(p0, 1);
        }
        scheduler.runUntil(MAX_LAG_MS + LAG_MS);
        assertEquals(20, p0.followerEndOffset(1), "follower 1 keeps fetching");
        assertEquals(0, p0.followerEndOffset(2), "follower 2 is stalled and in the ISR: the high watermark stays at 0");
        assertEquals(List.of(0, 1, 2), p0.isr());
        assertEquals(List.of(), heard);
    }

    @Test
    void anIsrShrinkAndARejoinEachCallCheckAndComplete() {
        start(BrokerConfig.builder().stallReplica(2));
        append(p0, 1);
        scheduler.runUntil(MAX_LAG_MS);
        assertEquals(List.of(), heard, "not caught up for exactly the max lag: still in");

        scheduler.runUntil(MAX_LAG_MS + MAX_LAG_MS / 2);
        assertEquals(List.of("checkAndComplete demo-0"), heard, "the shrink raised demo-0's high watermark to 1");
        assertEquals(List.of(0, 1), p0.isr());
        assertEquals(List.of(0, 1, 2), p1.isr(), "on idle demo-1 the stalled follower has the leader's end: it stays, as in Kafka");

        heard.clear();
        followers.resume(2);
        scheduler.runUntil(MAX_LAG_MS + MAX_LAG_MS / 2 + LAG_MS);
        assertEquals(List.of("checkAndComplete demo-0"), heard, "the resume fetched demo-0 and rejoined its ISR");
        assertEquals(List.of(0, 1, 2), p0.isr());
    }

    @Test
    void aDelayedStallStartsAfterItsDelayAndLasts() {
        start(BrokerConfig.builder().stallReplica(2).stallAfterMs(300));
        scheduler.runUntil(299);
        assertFalse(followers.isStalled(2));
        scheduler.runUntil(300);
        assertTrue(followers.isStalled(2));
        scheduler.runUntil(100_000);
        assertTrue(followers.isStalled(2));
        assertFalse(followers.isStalled(1));
    }

    @Test
    void aStalledFollowerFullyCaughtUpOnAnIdlePartitionStaysInTheIsr() {
        start(BrokerConfig.builder());
        append(p0, 5);
        scheduler.runUntil(2 * LAG_MS);
        followers.stall(2);
        scheduler.runUntil(20 * MAX_LAG_MS);
        assertEquals(List.of(0, 1, 2), p0.isr(), "replica 2 has the leader's log end offset: Kafka keeps it in the ISR");
        assertEquals(List.of(0, 1, 2), p1.isr());
        assertEquals(0, p0.timesLeftIsr(2));
        assertEquals(List.of("advance demo-0 5"), heard);
    }

    @Test
    void aStalledFollowersFetchInFlightIsDroppedAndAResumeFetchesEveryPartition() {
        start(BrokerConfig.builder());
        append(p0, 1);
        followers.stall(2);
        scheduler.runUntil(LAG_MS);
        assertEquals(1, p0.followerEndOffset(1));
        assertEquals(0, p0.followerEndOffset(2), "its fetch landed while it was stalled");
        assertEquals(0, scheduler.oneShotTasks());

        append(p0, 1);
        assertEquals(1, scheduler.oneShotTasks(), "only follower 1 fetches");
        followers.resume(2);
        assertEquals(3, scheduler.oneShotTasks(), "follower 2 fetches both partitions");
        scheduler.runUntil(2 * LAG_MS);
        assertEquals(2, p0.followerEndOffset(2));
        assertEquals(List.of("advance demo-0 2"), heard);
    }

    @Test
    void aHealthyFollowerKeepsUpWithHeavyLoadWithoutABacklogAndStaysInTheIsr() {
        start(BrokerConfig.builder().stallReplica(2));
        long loadMs = 10_000;
        for (long t = 0; t < loadMs; t++) {
            scheduler.runUntil(t);
            for (int i = 0; i < 10; i++) {
                append(p0, 1);
                append(p1, 1);
            }
            assertTrue(scheduler.oneShotTasks() <= 2, "at most one fetch in flight per partition for follower 1, at " + t + " ms");
        }
        scheduler.runUntil(loadMs + 2 * LAG_MS);
        for (Partition partition : List.of(p0, p1)) {
            assertEquals(10 * loadMs, partition.followerEndOffset(1), partition + ": caught up two lags after the last append");
            assertEquals(List.of(0, 1), partition.isr(), partition + ": only the stalled follower left");
            assertEquals(0, partition.timesLeftIsr(1));
            assertEquals(1, partition.timesLeftIsr(2));
        }
        assertEquals(0, scheduler.oneShotTasks());
        assertTrue(heard.size() <= 2 * (loadMs / LAG_MS + 2), "about one high watermark move per partition and lag, not per append: " + heard.size());
    }
}
