package io.purgatory.demo.broker.http;

import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.coordinator.CommittedOffset;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupSummary;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer groups as the dashboard and {@code /metrics} show them: each group's state,
 * generation, protocol and members (client id, host, assigned partitions, time since the last
 * heartbeat against the session timeout), and per committed partition the offset and the lag
 * behind the high watermark (what a consumer can read; kafka-exporter's lag uses the same end).
 * Immutable records, built at one instant per group.
 */
final class GroupsView {
    private GroupsView() {
    }

    /** A group. */
    record Group(String groupId, String state, int generation, String protocolType, String protocol, String leader, List<Member> members,
                 List<Offset> offsets) {
    }

    /**
     * A member.
     *
     * @param assignment its partitions as "topic-partition", empty while the group is not stable or when
     *     the assignment is not a consumer's
     */
    record Member(String memberId, String instanceId, String clientId, String host, List<String> assignment, long sinceHeartbeatMs,
                  int sessionTimeoutMs) {
    }

    /** A committed offset and its lag: the high watermark minus the offset, at least 0. */
    record Offset(String topic, int partition, long committed, long highWatermark, long lag) {
    }

    /** Every group now, by id. */
    static List<Group> of(GroupCoordinator coordinator, ReplicaManager replicaManager) {
        Map<TopicPartition, Long> highWatermarks = new HashMap<>();
        for (PartitionState p : replicaManager.partitionStates()) {
            highWatermarks.put(new TopicPartition(p.topic(), p.partition()), p.highWatermark());
        }
        List<Group> groups = new ArrayList<>();
        for (GroupSummary g : coordinator.describeGroups()) {
            List<Member> members = new ArrayList<>();
            for (GroupSummary.Member m : g.members()) {
                members.add(new Member(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                        assignment(g.protocolType(), m.assignment()), m.sinceHeartbeatMs(), m.sessionTimeoutMs()));
            }
            List<Offset> offsets = new ArrayList<>();
            for (Map.Entry<TopicPartition, CommittedOffset> e : g.offsets().entrySet()) {
                long hw = highWatermarks.getOrDefault(e.getKey(), 0L);
                offsets.add(new Offset(e.getKey().topic(), e.getKey().partition(), e.getValue().offset(), hw,
                        Math.max(0, hw - e.getValue().offset())));
            }
            offsets.sort(Comparator.comparing(Offset::topic).thenComparingInt(Offset::partition));
            groups.add(new Group(g.groupId(), g.state().kafkaName(), g.generationId(), g.protocolType(), g.protocolName(), g.leaderId(), members,
                    offsets));
        }
        groups.sort(Comparator.comparing(Group::groupId));
        return groups;
    }

    /** A consumer's assignment as "topic-partition" names; none for another protocol type or bytes that do not parse. */
    private static List<String> assignment(String protocolType, ByteBuffer bytes) {
        if (!GroupCoordinator.CONSUMER_PROTOCOL_TYPE.equals(protocolType) || !bytes.hasRemaining()) {
            return List.of();
        }
        try {
            return ConsumerProtocol.deserializeAssignment(bytes.duplicate()).partitions().stream()
                    .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))
                    .map(TopicPartition::toString).toList();
        } catch (RuntimeException garbage) {
            return List.of();
        }
    }
}
