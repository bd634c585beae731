package io.purgatory.demo.broker.cluster;

import java.util.List;

/**
 * One partition at one moment, as its leader sees it: for the dashboard. Immutable.
 *
 * @param topic the topic's name
 * @param partition the partition's index
 * @param leaderEndOffset the leader's log end offset
 * @param highWatermark the smallest log end offset in the ISR
 * @param logStartOffset the leader's log start offset (retention and {@code DeleteRecords} move it)
 * @param lowWatermark the smallest log start offset in the ISR
 * @param followerEndOffsets each follower's log end offset, replica 1 first
 * @param isr the in-sync replicas' ids, leader (0) first
 * @param minInsyncReplicas {@code min.insync.replicas}
 */
public record PartitionState(String topic, int partition, long leaderEndOffset, long highWatermark, long logStartOffset, long lowWatermark,
                             List<Long> followerEndOffsets, List<Integer> isr, int minInsyncReplicas) {
    public PartitionState {
        followerEndOffsets = List.copyOf(followerEndOffsets);
        isr = List.copyOf(isr);
    }
}
