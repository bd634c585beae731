package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.CommittedOffset;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Answers stay bounded: a group named again is answered once, and groups past the response limit get an error, not their data. */
class GroupApisTest {
    private static final int LIMIT = 65_536;
    private static final short OFFSET_FETCH_V8 = 8;

    private final BrokerConfig config = BrokerConfig.builder().port(0).topic("t", 20).maxResponseBytes(LIMIT).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final GroupApis apis = new GroupApis(coordinator, coordinator.admin(), replicaManager);

    @AfterEach
    void tearDown() {
        coordinator.close();
        replicaManager.close();
    }

    @Test
    void describeGroupsAnswersAGroupNamedManyTimesOnce() {
        commit("g", 1, "");
        DescribeGroupsRequest request = new DescribeGroupsRequest.Builder(new DescribeGroupsRequestData()
                .setGroups(List.of("g", "g", "g", "nope", "nope"))).build();
        List<String> described = apis.describeGroups(request, request.version()).data().groups().stream().map(g -> g.groupId()).toList();
        assertEquals(List.of("g", "nope"), described);
    }

    @Test
    void offsetFetchAnswersEachGroupOnceAndThoseThatDoNotFitGetPolicyViolation() {
        commit("big", 20, "m".repeat(4_000)); // 20 offsets of 4,000-character metadata: over 64 KiB in a response
        commit("small", 1, "");
        OffsetFetchRequest request = OffsetFetchRequest.Builder.forTopicNames(new OffsetFetchRequestData().setGroups(List.of(
                group("small"), group("big"), group("small"), group("big"))), false).build(OFFSET_FETCH_V8);

        List<OffsetFetchResponseGroup> groups = apis.offsetFetch(request, OFFSET_FETCH_V8).data().groups();

        assertEquals(List.of("small", "big"), groups.stream().map(OffsetFetchResponseGroup::groupId).toList());
        assertEquals(Errors.NONE.code(), groups.get(0).errorCode());
        assertEquals(1, groups.get(0).topics().get(0).partitions().size());
        assertEquals(Errors.POLICY_VIOLATION.code(), groups.get(1).errorCode(), "its offsets would not fit in --max-response-bytes");
        assertEquals(List.of(), groups.get(1).topics());
    }

    @Test
    void deleteGroupsAnswersAGroupNamedTwiceOnceWithWhatItsDeletionDid() {
        commit("g", 1, "");
        DeleteGroupsRequest request = new DeleteGroupsRequest.Builder(new DeleteGroupsRequestData().setGroupsNames(List.of("g", "g"))).build();
        var results = apis.deleteGroups(request).data().results();
        assertEquals(1, results.size());
        assertEquals(Errors.NONE.code(), results.find("g").errorCode());
    }

    private void commit(String groupId, int partitions, String metadata) {
        Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            offsets.put(new TopicPartition("t", p), new CommittedOffset(p, -1, metadata, 0));
        }
        assertEquals(Errors.NONE, coordinator.commitOffsets(groupId, "", null, -1, "test", offsets).groupError());
    }

    private static OffsetFetchRequestGroup group(String groupId) {
        return new OffsetFetchRequestGroup().setGroupId(groupId).setTopics(null);
    }
}
