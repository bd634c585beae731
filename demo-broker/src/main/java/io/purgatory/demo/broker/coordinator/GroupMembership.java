package io.purgatory.demo.broker.coordinator;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * What a classic group's members ask of the coordinator: JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup, which move the group's state machine, and OffsetCommit, which that state machine
 * validates (member and generation). {@link GroupCoordinator} implements it; the broker's group
 * APIs reach the state machine only through it. The admin queries are {@link GroupAdmin}'s.
 *
 * <p>Implementations are thread-safe. A JoinGroup or SyncGroup answer goes to its callback exactly
 * once, at once or later on another thread (when the phase completes or the coordinator closes).
 */
public interface GroupMembership {
    /**
     * A JoinGroup, answered through {@code callback} once.
     *
     * @param version the request's version (v4+ gets {@code MEMBER_ID_REQUIRED} on a first join)
     */
    void joinGroup(JoinGroupRequestData request, short version, String clientId, String clientHost, Consumer<JoinGroupResponseData> callback);

    /** A SyncGroup, answered through {@code callback} once, now or when the leader's assignment arrives. */
    void syncGroup(SyncGroupRequestData request, Consumer<SyncGroupResponseData> callback);

    /** A Heartbeat: its error, {@code NONE} when the member is in good standing. */
    Errors heartbeat(String groupId, String memberId, String groupInstanceId, int generationId);

    /** A LeaveGroup of one or more members: one response per member, in order. */
    List<MemberResponse> leaveGroup(String groupId, List<MemberIdentity> leaving);

    /**
     * An OffsetCommit, validated as Kafka's classic groups do: a member of the current generation, or
     * anyone (generation -1, no member id) while the group is empty, which creates a "simple" group
     * (counted against {@code clientId}'s groups), from no address (a call inside the process).
     */
    default OffsetResult commitOffsets(String groupId, String memberId, String groupInstanceId, int generationId, String clientId,
                                       Map<TopicPartition, CommittedOffset> offsets) {
        return commitOffsets(groupId, memberId, groupInstanceId, generationId, clientId, "", offsets, topic -> true);
    }

    /**
     * An OffsetCommit of topics that may be deleted meanwhile: after the offsets are written, under
     * the group's lock, those of a topic for which {@code stillExists} is false are dropped again and
     * answered {@code UNKNOWN_TOPIC_OR_PARTITION}. A delete drops the offsets of the groups that hold
     * some of its topic after the topic is gone; so a commit racing it either is seen by the delete
     * or sees the topic gone, and no offset of a deleted topic stays. A group it creates counts
     * against {@code clientId} at {@code clientHost} and against that address.
     */
    OffsetResult commitOffsets(String groupId, String memberId, String groupInstanceId, int generationId, String clientId,
                               String clientHost, Map<TopicPartition, CommittedOffset> offsets, Predicate<String> stillExists);
}
