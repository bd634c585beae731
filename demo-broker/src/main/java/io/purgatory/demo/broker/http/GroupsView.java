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
import java.util.PriorityQueue;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer groups as the dashboard and {@code /metrics} show them: each group's state,
 * generation, protocol and members (client id, host, assigned partitions, time since the last
 * heartbeat against the session timeout), and per committed partition the offset and the lag
 * behind the high watermark (what a consumer can read; kafka-exporter's lag uses the same end).
 * Immutable records, built at one instant per group.
 *
 * <p>{@link #of} is every group in full ({@code /metrics}); {@link #top} is what the dashboard's
 * samples hold, bounded whatever the broker holds: the {@code limit} groups of most lag, each with
 * at most {@value #MEMBERS_SHOWN} members (each with at most {@value #ASSIGNMENT_SHOWN} assigned
 * partitions) and its {@value #OFFSETS_SHOWN} offsets of most lag, every
 * string cut to {@value #MAX_STRING_CHARS} characters, and the counts of what was left out.
 */
final class GroupsView {
    /** Members of a group a dashboard sample shows at most. */
    static final int MEMBERS_SHOWN = 5;
    /** Assigned partitions of a member a dashboard sample shows at most. */
    static final int ASSIGNMENT_SHOWN = 5;
    /** Offsets of a group a dashboard sample shows at most (those of most lag). */
    static final int OFFSETS_SHOWN = 10;
    /** Characters of any string a dashboard sample shows at most (a client id may have 32,767). */
    static final int MAX_STRING_CHARS = 256;

    private GroupsView() {
    }

    /**
     * A group.
     *
     * @param memberCount its members, of which {@code members} may show fewer
     * @param offsetCount its committed offsets, of which {@code offsets} may show fewer
     * @param totalLag the lag of all its committed offsets
     */
    record Group(String groupId, String state, int generation, String protocolType, String protocol, String leader, List<Member> members,
                 List<Offset> offsets, int memberCount, int offsetCount, long totalLag) {
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

    /** Every group now, by id, in full. */
    static List<Group> of(GroupCoordinator coordinator, ReplicaManager replicaManager) {
        Map<TopicPartition, Long> highWatermarks = highWatermarks(replicaManager);
        List<Group> groups = new ArrayList<>();
        for (GroupSummary g : coordinator.admin().describeGroups()) {
            groups.add(group(g, highWatermarks, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE));
        }
        groups.sort(Comparator.comparing(Group::groupId));
        return groups;
    }

    /** The {@code limit} groups of most lag (ties by id), shown by id, each cut as the class comment says. */
    static List<Group> top(GroupCoordinator coordinator, ReplicaManager replicaManager, int limit) {
        Map<TopicPartition, Long> highWatermarks = highWatermarks(replicaManager);
        Comparator<Lagging> leastFirst = Comparator.comparingLong(Lagging::lag).thenComparing(l -> l.group().groupId(), Comparator.reverseOrder());
        PriorityQueue<Lagging> most = new PriorityQueue<>(leastFirst);
        for (GroupSummary g : coordinator.admin().describeGroups()) {
            most.add(new Lagging(g, lag(g, highWatermarks)));
            if (most.size() > limit) {
                most.poll();
            }
        }
        List<Group> groups = new ArrayList<>();
        most.forEach(l -> groups.add(group(l.group(), highWatermarks, MEMBERS_SHOWN, ASSIGNMENT_SHOWN, OFFSETS_SHOWN, MAX_STRING_CHARS)));
        groups.sort(Comparator.comparing(Group::groupId));
        return groups;
    }

    private record Lagging(GroupSummary group, long lag) {
    }

    private static Map<TopicPartition, Long> highWatermarks(ReplicaManager replicaManager) {
        Map<TopicPartition, Long> highWatermarks = new HashMap<>();
        for (PartitionState p : replicaManager.topics().partitionStates()) {
            highWatermarks.put(new TopicPartition(p.topic(), p.partition()), p.highWatermark());
        }
        return highWatermarks;
    }

    private static long lag(GroupSummary g, Map<TopicPartition, Long> highWatermarks) {
        long lag = 0;
        for (Map.Entry<TopicPartition, CommittedOffset> e : g.offsets().entrySet()) {
            lag += Math.max(0, highWatermarks.getOrDefault(e.getKey(), 0L) - e.getValue().offset());
        }
        return lag;
    }

    /**
     * A group with at most {@code maxMembers} members (each with at most {@code maxAssigned} assigned
     * partitions) and its {@code maxOffsets} offsets of most lag, strings cut to {@code maxChars}.
     */
    private static Group group(GroupSummary g, Map<TopicPartition, Long> highWatermarks, int maxMembers, int maxAssigned, int maxOffsets,
                               int maxChars) {
        List<Member> members = new ArrayList<>();
        for (GroupSummary.Member m : g.members()) {
            if (members.size() == maxMembers) {
                break;
            }
            members.add(new Member(cut(m.memberId(), maxChars), cut(m.groupInstanceId(), maxChars), cut(m.clientId(), maxChars),
                    cut(m.clientHost(), maxChars), assignment(g.protocolType(), m.assignment(), maxAssigned),
                    m.sinceHeartbeatMs(), m.sessionTimeoutMs()));
        }
        List<Offset> offsets = new ArrayList<>();
        long totalLag = 0;
        for (Map.Entry<TopicPartition, CommittedOffset> e : g.offsets().entrySet()) {
            long hw = highWatermarks.getOrDefault(e.getKey(), 0L);
            long lag = Math.max(0, hw - e.getValue().offset());
            totalLag += lag;
            offsets.add(new Offset(e.getKey().topic(), e.getKey().partition(), e.getValue().offset(), hw, lag));
        }
        if (offsets.size() > maxOffsets) {
            offsets.sort(Comparator.comparingLong(Offset::lag).reversed());
            offsets = new ArrayList<>(offsets.subList(0, maxOffsets));
        }
        offsets.sort(Comparator.comparing(Offset::topic).thenComparingInt(Offset::partition));
        return new Group(cut(g.groupId(), maxChars), g.state().kafkaName(), g.generationId(), cut(g.protocolType(), maxChars),
                cut(g.protocolName(), maxChars), cut(g.leaderId(), maxChars), members, offsets, g.members().size(), g.offsets().size(), totalLag);
    }

    private static String cut(String value, int maxChars) {
        return value == null || value.length() <= maxChars ? value : value.substring(0, maxChars);
    }

    /** A consumer's assignment as "topic-partition" names, the first {@code limit}; none for another protocol type or bytes that do not parse. */
    private static List<String> assignment(String protocolType, ByteBuffer bytes, int limit) {
        if (!GroupCoordinator.CONSUMER_PROTOCOL_TYPE.equals(protocolType) || !bytes.hasRemaining()) {
            return List.of();
        }
        try {
            return ConsumerProtocol.deserializeAssignment(bytes.duplicate()).partitions().stream()
                    .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))
                    .limit(limit).map(TopicPartition::toString).toList();
        } catch (RuntimeException garbage) {
            return List.of();
        }
    }
}
