package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.coordinator.CommittedOffset;
import io.purgatory.demo.broker.coordinator.GroupAdmin;
import io.purgatory.demo.broker.coordinator.GroupMembership;
import io.purgatory.demo.broker.coordinator.GroupState;
import io.purgatory.demo.broker.coordinator.GroupSummary;
import io.purgatory.demo.broker.coordinator.OffsetResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * The group APIs, as Kafka's {@code KafkaApis} handles them in front of its group coordinator:
 * FindCoordinator (this broker, for groups), JoinGroup and SyncGroup (answered from the
 * coordinator's callbacks, possibly later and from a purgatory's thread), Heartbeat, LeaveGroup,
 * OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups and OffsetDelete, each in
 * every version kafka-clients has. Offsets are accepted for the broker's partitions only (others get
 * {@code UNKNOWN_TOPIC_OR_PARTITION}, or {@code UNKNOWN_TOPIC_ID} by id), which also bounds the
 * offsets a group holds.
 *
 * <p>A JoinGroup or SyncGroup that waits is not tied to its connection: when the connection
 * closes, the member stays (its session timeout or a LeaveGroup removes it, as in Kafka) and its
 * answer, when it comes, goes to a response slot the closed connection has already dropped.
 *
 * <p>It reaches the group state machine only through {@link GroupMembership} (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit) and the admin queries through {@link GroupAdmin}.
 *
 * <p>Thread-safe: stateless; the membership, the admin queries and the replica manager are thread-safe.
 */
final class GroupApis {
    /** FindCoordinator's key type for a group ({@code CoordinatorType.GROUP}). */
    private static final byte GROUP_KEY_TYPE = 0;
    private static final String GROUP_TYPE_CLASSIC = "classic";

    private final GroupMembership membership;
    private final GroupAdmin admin;
    private final ReplicaManager replicaManager;

    GroupApis(GroupMembership membership, GroupAdmin admin, ReplicaManager replicaManager) {
        this.membership = membership;
        this.admin = admin;
        this.replicaManager = replicaManager;
    }

    FindCoordinatorResponse findCoordinator(FindCoordinatorRequest request, short version, String host, int port) {
        Node self = new Node(Partition.LEADER_ID, host, port);
        byte keyType = request.data().keyType();
        Errors error = keyType == GROUP_KEY_TYPE ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE;
        if (version < FindCoordinatorRequest.MIN_BATCHED_VERSION) {
            return FindCoordinatorResponse.prepareOldResponse(error, error == Errors.NONE ? self : Node.noNode());
        }
        FindCoordinatorResponseData data = new FindCoordinatorResponseData();
        for (String key : request.data().coordinatorKeys()) {
            data.coordinators().add(FindCoordinatorResponse.prepareCoordinatorResponse(error, key, error == Errors.NONE ? self : Node.noNode()));
        }
        return new FindCoordinatorResponse(data);
    }

    void joinGroup(JoinGroupRequest request, short version, String clientId, String clientHost, Responder responder) {
        membership.joinGroup(request.data(), version, clientId, clientHost, data -> responder.send(new JoinGroupResponse(data, version)));
    }

    void syncGroup(SyncGroupRequest request, Responder responder) {
        membership.syncGroup(request.data(), data -> responder.send(new SyncGroupResponse(data)));
    }

    HeartbeatResponse heartbeat(HeartbeatRequest request) {
        Errors error = membership.heartbeat(request.data().groupId(), request.data().memberId(), request.data().groupInstanceId(),
                request.data().generationId());
        return new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code()));
    }

    LeaveGroupResponse leaveGroup(LeaveGroupRequest request, short version) {
        // versions 0-2 carry one member and take its error as the response's
        return new LeaveGroupResponse(membership.leaveGroup(request.data().groupId(), request.members()), Errors.NONE, 0, version);
    }

    /** An OffsetCommit from {@code clientId} at {@code clientHost} (a group it creates counts against both). */
    OffsetCommitResponse offsetCommit(OffsetCommitRequest request, short version, String clientId, String clientHost) {
        boolean useIds = OffsetCommitResponse.useTopicIds(version);
        List<CommitTopic> topics = new ArrayList<>();
        Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        Map<String, TopicRegistry.Topic> committedTopics = new HashMap<>();
        TopicRegistry registry = replicaManager.topics();
        for (OffsetCommitRequestTopic topic : request.data().topics()) {
            CommitTopic resolved = new CommitTopic(topic, useIds ? registry.topic(topic.topicId()) : registry.topic(topic.name()));
            topics.add(resolved);
            for (OffsetCommitRequestPartition p : topic.partitions()) {
                if (resolved.has(p.partitionIndex())) {
                    committedTopics.put(resolved.known().name(), resolved.known());
                    offsets.put(new TopicPartition(resolved.known().name(), p.partitionIndex()),
                            new CommittedOffset(p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), 0));
                }
            }
        }
        OffsetResult result = offsets.isEmpty() ? null
                : membership.commitOffsets(request.data().groupId(), request.data().memberId(), request.data().groupInstanceId(),
                        request.data().generationIdOrMemberEpoch(), clientId, clientHost, offsets,
                        name -> registry.topic(name) == committedTopics.get(name)); // not deleted (nor deleted and created again) meanwhile
        OffsetCommitResponse.Builder builder = OffsetCommitResponse.newBuilder(useIds);
        for (CommitTopic topic : topics) {
            for (OffsetCommitRequestPartition p : topic.request().partitions()) {
                Errors error = !topic.has(p.partitionIndex())
                        ? (topic.known() == null && useIds ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                        : result.error(new TopicPartition(topic.known().name(), p.partitionIndex()));
                builder.addPartition(topic.request().topicId(), TopicNames.echoable(topic.request().name()), p.partitionIndex(), error);
            }
        }
        return builder.build();
    }

    /** A topic of an OffsetCommit and the broker's topic it names, or null. */
    private record CommitTopic(OffsetCommitRequestTopic request, TopicRegistry.Topic known) {
        boolean has(int partition) {
            return known != null && known.partition(partition) != null;
        }
    }

    /**
     * An OffsetFetch: each group once (a group named again is answered once, with its first entry),
     * within {@link ResponseBudget}: a group whose offsets do not fit gets {@code POLICY_VIOLATION}.
     */
    OffsetFetchResponse offsetFetch(OffsetFetchRequest request, short version) {
        boolean useIds = OffsetFetchRequest.useTopicIds(version);
        ResponseBudget budget = new ResponseBudget(replicaManager.config().maxResponseBytes());
        Map<String, OffsetFetchResponseGroup> groups = new LinkedHashMap<>();
        for (OffsetFetchRequestGroup group : request.groups()) {
            if (!groups.containsKey(group.groupId())) {
                groups.put(group.groupId(), fetchGroup(group, useIds, budget));
            }
        }
        return new OffsetFetchResponse.Builder(new ArrayList<>(groups.values())).build(version);
    }

    private OffsetFetchResponseGroup fetchGroup(OffsetFetchRequestGroup group, boolean useIds, ResponseBudget budget) {
        OffsetFetchResponseGroup response = new OffsetFetchResponseGroup().setGroupId(group.groupId());
        if (group.topics() == null) { // every committed offset of the group
            Map<TopicPartition, CommittedOffset> offsets = admin.fetchOffsets(group.groupId(), null);
            if (!budget.take(offsetBytes(offsets))) {
                return response.setErrorCode(Errors.POLICY_VIOLATION.code());
            }
            Map<String, OffsetFetchResponseTopics> byTopic = new LinkedHashMap<>();
            offsets.forEach((tp, offset) -> {
                TopicRegistry.Topic topic = replicaManager.topics().topic(tp.topic());
                byTopic.computeIfAbsent(tp.topic(), name -> new OffsetFetchResponseTopics().setName(useIds ? "" : name)
                        .setTopicId(useIds && topic != null ? topic.id() : Uuid.ZERO_UUID))
                        .partitions().add(partition(tp.partition(), offset, Errors.NONE));
            });
            return response.setTopics(new ArrayList<>(byTopic.values()));
        }
        List<TopicPartition> wanted = new ArrayList<>();
        for (OffsetFetchRequestTopics topic : group.topics()) {
            TopicRegistry.Topic known = useIds ? replicaManager.topics().topic(topic.topicId()) : replicaManager.topics().topic(topic.name());
            if (known != null) {
                topic.partitionIndexes().forEach(p -> wanted.add(new TopicPartition(known.name(), p)));
            }
        }
        Map<TopicPartition, CommittedOffset> committed = admin.fetchOffsets(group.groupId(), wanted);
        long unknown = 0;
        for (OffsetFetchRequestTopics topic : group.topics()) {
            unknown += ResponseBudget.bytes(topic.name()) + (long) ResponseBudget.PART_OVERHEAD_BYTES * (1 + topic.partitionIndexes().size());
        }
        if (!budget.take(offsetBytes(committed) + unknown)) {
            return response.setErrorCode(Errors.POLICY_VIOLATION.code());
        }
        for (OffsetFetchRequestTopics topic : group.topics()) {
            TopicRegistry.Topic known = useIds ? replicaManager.topics().topic(topic.topicId()) : replicaManager.topics().topic(topic.name());
            OffsetFetchResponseTopics out = new OffsetFetchResponseTopics().setName(useIds ? "" : TopicNames.echoable(topic.name()))
                    .setTopicId(useIds ? topic.topicId() : Uuid.ZERO_UUID);
            for (int p : topic.partitionIndexes()) {
                Errors error = known == null ? (useIds ? Errors.UNKNOWN_TOPIC_ID : Errors.NONE) : Errors.NONE;
                CommittedOffset offset = known == null ? null : committed.get(new TopicPartition(known.name(), p));
                out.partitions().add(partition(p, offset, error));
            }
            response.topics().add(out);
        }
        return response;
    }

    /** What offsets may take in a response, at most. */
    private static long offsetBytes(Map<TopicPartition, CommittedOffset> offsets) {
        long bytes = 0;
        for (Map.Entry<TopicPartition, CommittedOffset> offset : offsets.entrySet()) {
            bytes += ResponseBudget.PART_OVERHEAD_BYTES + ResponseBudget.bytes(offset.getKey().topic())
                    + ResponseBudget.bytes(offset.getValue().metadata());
        }
        return bytes;
    }

    private static OffsetFetchResponsePartitions partition(int index, CommittedOffset offset, Errors error) {
        return new OffsetFetchResponsePartitions().setPartitionIndex(index)
                .setCommittedOffset(offset == null ? OffsetFetchResponse.INVALID_OFFSET : offset.offset())
                .setCommittedLeaderEpoch(offset == null ? -1 : offset.leaderEpoch())
                .setMetadata(offset == null ? OffsetFetchResponse.NO_METADATA : offset.metadata())
                .setErrorCode(error.code());
    }

    ListGroupsResponse listGroups(ListGroupsRequest request) {
        ListGroupsResponseData data = new ListGroupsResponseData();
        Set<GroupState> states = new HashSet<>();
        for (String name : request.data().statesFilter()) {
            GroupState state = GroupState.parse(name);
            if (state != null) {
                states.add(state);
            }
        }
        boolean unknownStateOnly = !request.data().statesFilter().isEmpty() && states.isEmpty();
        boolean classicWanted = request.data().typesFilter().isEmpty()
                || request.data().typesFilter().stream().anyMatch(t -> t.toLowerCase(Locale.ROOT).equals(GROUP_TYPE_CLASSIC));
        if (classicWanted && !unknownStateOnly) {
            for (GroupSummary group : admin.listGroups(states)) {
                data.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(group.groupId()).setProtocolType(group.protocolType())
                        .setGroupState(group.state().kafkaName()).setGroupType(GROUP_TYPE_CLASSIC));
            }
        }
        return new ListGroupsResponse(data);
    }

    /**
     * A DescribeGroups: each group once, however often it is named, within {@link ResponseBudget}: a
     * group whose members do not fit gets {@code POLICY_VIOLATION}.
     */
    DescribeGroupsResponse describeGroups(DescribeGroupsRequest request, short version) {
        DescribeGroupsResponseData data = new DescribeGroupsResponseData();
        ResponseBudget budget = new ResponseBudget(replicaManager.config().maxResponseBytes());
        for (String groupId : new LinkedHashSet<>(request.data().groups())) {
            GroupSummary group = admin.describeGroup(groupId);
            if (group == null) {
                data.groups().add(version >= 6 ? DescribeGroupsResponse.groupError(TopicNames.echoable(groupId), Errors.GROUP_ID_NOT_FOUND)
                        : DescribeGroupsResponse.groupMetadata(TopicNames.echoable(groupId), Errors.NONE, GroupState.DEAD.kafkaName(), "", "",
                                List.of(), DescribeGroupsResponse.AUTHORIZED_OPERATIONS_OMITTED));
                continue;
            }
            if (!budget.take(describedBytes(group))) {
                DescribedGroup refused = DescribeGroupsResponse.groupError(group.groupId(), Errors.POLICY_VIOLATION);
                if (version >= 6) {
                    refused.setErrorMessage("The response would exceed " + replicaManager.config().maxResponseBytes()
                            + " bytes (--max-response-bytes); describe this group alone.");
                }
                data.groups().add(refused);
                continue;
            }
            List<DescribedGroupMember> members = new ArrayList<>();
            group.members().forEach(m -> members.add(DescribeGroupsResponse.groupMember(m.memberId(), m.groupInstanceId(), m.clientId(),
                    m.clientHost(), Utils.toArray(m.assignment()), Utils.toArray(m.metadata()))));
            DescribedGroup described = DescribeGroupsResponse.groupMetadata(group.groupId(), Errors.NONE, group.state().kafkaName(),
                    group.protocolType(), group.state() == GroupState.STABLE ? group.protocolName() : "", members,
                    DescribeGroupsResponse.AUTHORIZED_OPERATIONS_OMITTED);
            data.groups().add(described);
        }
        return new DescribeGroupsResponse(data);
    }

    /** What a described group may take in a response, at most. */
    private static long describedBytes(GroupSummary group) {
        long bytes = ResponseBudget.PART_OVERHEAD_BYTES + ResponseBudget.bytes(group.groupId()) + ResponseBudget.bytes(group.protocolType())
                + ResponseBudget.bytes(group.protocolName());
        for (GroupSummary.Member m : group.members()) {
            bytes += ResponseBudget.PART_OVERHEAD_BYTES + ResponseBudget.bytes(m.memberId()) + ResponseBudget.bytes(m.groupInstanceId())
                    + ResponseBudget.bytes(m.clientId()) + ResponseBudget.bytes(m.clientHost()) + m.metadata().remaining()
                    + m.assignment().remaining();
        }
        return bytes;
    }

    DeleteGroupsResponse deleteGroups(DeleteGroupsRequest request) {
        DeletableGroupResultCollection results = new DeletableGroupResultCollection();
        admin.deleteGroups(request.data().groupsNames()).forEach((groupId, error) ->
                results.add(new DeletableGroupResult().setGroupId(TopicNames.echoable(groupId)).setErrorCode(error.code())));
        return new DeleteGroupsResponse(new DeleteGroupsResponseData().setResults(results));
    }

    OffsetDeleteResponse offsetDelete(OffsetDeleteRequest request) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (OffsetDeleteRequestTopic topic : request.data().topics()) {
            for (OffsetDeleteRequestPartition p : topic.partitions()) {
                partitions.add(new TopicPartition(TopicNames.echoable(topic.name()), p.partitionIndex()));
            }
        }
        OffsetResult result = admin.deleteOffsets(request.data().groupId(), partitions);
        OffsetDeleteResponseData data = new OffsetDeleteResponseData().setErrorCode(result.groupError().code());
        if (result.groupError() == Errors.NONE) {
            OffsetDeleteResponseTopicCollection topics = new OffsetDeleteResponseTopicCollection();
            for (OffsetDeleteRequestTopic topic : request.data().topics()) {
                OffsetDeleteResponsePartitionCollection out = new OffsetDeleteResponsePartitionCollection();
                TopicRegistry.Topic known = replicaManager.topics().topic(topic.name());
                for (OffsetDeleteRequestPartition p : topic.partitions()) {
                    TopicPartition tp = new TopicPartition(TopicNames.echoable(topic.name()), p.partitionIndex());
                    Errors error = known == null || known.partition(p.partitionIndex()) == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : result.error(tp);
                    out.add(new OffsetDeleteResponsePartition().setPartitionIndex(p.partitionIndex()).setErrorCode(error.code()));
                }
                topics.add(new OffsetDeleteResponseTopic().setName(TopicNames.echoable(topic.name())).setPartitions(out));
            }
            data.setTopics(topics);
        }
        return new OffsetDeleteResponse(data);
    }
}
