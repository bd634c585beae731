package io.purgatory.demo.broker.coordinator;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What the coordinator shows of a group at one instant: for ListGroups and DescribeGroups, the
 * dashboard and /metrics. Immutable (the bytes are read-only buffers), so safe to hand to any thread.
 *
 * @param groupId the group
 * @param state its state
 * @param generationId its generation
 * @param protocolType "consumer" for Kafka's consumers, "" for a group that only commits offsets
 * @param protocolName the selected protocol (the assignor), "" outside a generation
 * @param leaderId the leader's member id, or null
 * @param members the members, in the order they joined (empty in a listing)
 * @param offsets the committed offsets (empty in a listing)
 */
public record GroupSummary(String groupId, GroupState state, int generationId, String protocolType, String protocolName, String leaderId,
                           List<Member> members, Map<TopicPartition, CommittedOffset> offsets) {

    /**
     * One member.
     *
     * @param memberId its member id
     * @param groupInstanceId its static instance id, or null for a dynamic member
     * @param clientId the client id it joined with
     * @param clientHost the address it joined from
     * @param metadata its metadata for the selected protocol while the group is stable, else empty; read-only
     * @param assignment its assignment while the group is stable, else empty; read-only
     * @param sinceHeartbeatMs time since the coordinator last heard from it
     * @param sessionTimeoutMs its session timeout
     */
    public record Member(String memberId, String groupInstanceId, String clientId, String clientHost, ByteBuffer metadata, ByteBuffer assignment,
                         long sinceHeartbeatMs, int sessionTimeoutMs) {
    }
}
