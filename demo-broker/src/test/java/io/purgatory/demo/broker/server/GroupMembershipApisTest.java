package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.CommittedOffset;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.coordinator.GroupMembership;
import io.purgatory.demo.broker.coordinator.OffsetResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The four member APIs of {@link GroupApis} one at a time, each against a stand-in
 * {@link GroupMembership} that records what reached it and answers as told: no group state
 * machine, no purgatory, no clock. What is checked is the handler's own part: the request's fields
 * reach the coordinator unchanged, and its answer (at once, or later through the callback) becomes
 * the response of the request's version.
 */
class GroupMembershipApisTest {
    private final BrokerConfig config = BrokerConfig.builder().port(0).topic("t", 1).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator unused = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final StandIn membership = new StandIn();
    private final GroupApis apis = new GroupApis(membership, unused.admin(), replicaManager);
    private final RecordingResponder responder = new RecordingResponder();

    @AfterEach
    void close() {
        unused.close();
        replicaManager.close();
    }

    @Test
    void aJoinGroupIsAnsweredWhenTheCoordinatorCallsBack() {
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId("g").setMemberId("").setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(30_000).setProtocolType("consumer");
        short version = 5;

        apis.joinGroup(new JoinGroupRequest.Builder(data).build(version), version, "client-1", "/10.0.0.1", responder);

        assertEquals(List.of("g"), membership.joins.stream().map(JoinGroupRequestData::groupId).toList());
        assertEquals(List.of("5 client-1 /10.0.0.1"), membership.joinCallers);
        assertEquals(0, responder.answers(), "parked: the join phase has not completed");

        membership.joinAnswer.accept(new JoinGroupResponseData().setMemberId("m-1").setGenerationId(1).setLeader("m-1"));

        JoinGroupResponse response = (JoinGroupResponse) responder.sent.get(0);
        assertEquals(1, responder.answers());
        assertEquals("m-1", response.data().memberId());
        assertEquals(1, response.data().generationId());
    }

    @Test
    void aSyncGroupIsAnsweredWithTheAssignmentTheCoordinatorGives() {
        SyncGroupRequestData data = new SyncGroupRequestData().setGroupId("g").setMemberId("m-1").setGenerationId(3);

        apis.syncGroup(new SyncGroupRequest.Builder(data).build(), responder);

        assertEquals(List.of("g m-1 3"), membership.syncs.stream().map(s -> s.groupId() + " " + s.memberId() + " " + s.generationId()).toList());
        assertEquals(0, responder.answers(), "parked until the leader's assignment");

        membership.syncAnswer.accept(new SyncGroupResponseData().setAssignment(new byte[] {7}));

        SyncGroupResponse response = (SyncGroupResponse) responder.sent.get(0);
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        assertEquals(7, response.data().assignment()[0]);
    }

    @Test
    void aHeartbeatCarriesTheCoordinatorsError() {
        membership.heartbeatError = Errors.REBALANCE_IN_PROGRESS;
        HeartbeatRequestData data = new HeartbeatRequestData().setGroupId("g").setMemberId("m-1").setGroupInstanceId("i-1").setGenerationId(4);

        HeartbeatResponse response = apis.heartbeat(new HeartbeatRequest.Builder(data).build());

        assertEquals(List.of("g m-1 i-1 4"), membership.heartbeats);
        assertEquals(Errors.REBALANCE_IN_PROGRESS.code(), response.data().errorCode());
    }

    @Test
    void aLeaveGroupOfSeveralMembersGetsOneAnswerEach() {
        List<MemberIdentity> leaving = List.of(new MemberIdentity().setMemberId("m-1"), new MemberIdentity().setMemberId("m-2"));
        membership.leaveAnswer = List.of(new MemberResponse().setMemberId("m-1"),
                new MemberResponse().setMemberId("m-2").setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));

        LeaveGroupResponse response = apis.leaveGroup(new LeaveGroupRequest.Builder("g", leaving).build((short) 3), (short) 3);

        assertEquals(List.of("g [m-1, m-2]"), membership.leaves);
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        assertEquals(membership.leaveAnswer, response.data().members());
    }

    @Test
    void aLeaveGroupOfVersionZeroTakesItsOneMembersErrorAsTheResponses() {
        membership.leaveAnswer = List.of(new MemberResponse().setMemberId("m-1").setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));

        LeaveGroupResponse response = apis.leaveGroup(new LeaveGroupRequest.Builder("g",
                List.of(new MemberIdentity().setMemberId("m-1"))).build((short) 0), (short) 0);

        assertEquals(List.of("g [m-1]"), membership.leaves);
        assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), response.data().errorCode());
    }

    /** Records each call and answers with what the test set; a parked answer is kept to be given later. */
    private static final class StandIn implements GroupMembership {
        private final List<JoinGroupRequestData> joins = new ArrayList<>();
        private final List<String> joinCallers = new ArrayList<>();
        private Consumer<JoinGroupResponseData> joinAnswer;
        private final List<SyncGroupRequestData> syncs = new ArrayList<>();
        private Consumer<SyncGroupResponseData> syncAnswer;
        private final List<String> heartbeats = new ArrayList<>();
        private Errors heartbeatError = Errors.NONE;
        private final List<String> leaves = new ArrayList<>();
        private List<MemberResponse> leaveAnswer = List.of();

        @Override
        public void joinGroup(JoinGroupRequestData request, short version, String clientId, String clientHost,
                              Consumer<JoinGroupResponseData> callback) {
            joins.add(request);
            joinCallers.add(version + " " + clientId + " " + clientHost);
            joinAnswer = callback;
        }

        @Override
        public void syncGroup(SyncGroupRequestData request, Consumer<SyncGroupResponseData> callback) {
            syncs.add(request);
            syncAnswer = callback;
        }

        @Override
        public Errors heartbeat(String groupId, String memberId, String groupInstanceId, int generationId) {
            heartbeats.add(groupId + " " + memberId + " " + groupInstanceId + " " + generationId);
            return heartbeatError;
        }

        @Override
        public List<MemberResponse> leaveGroup(String groupId, List<MemberIdentity> leaving) {
            leaves.add(groupId + " " + leaving.stream().map(MemberIdentity::memberId).toList());
            return leaveAnswer;
        }

        @Override
        public OffsetResult commitOffsets(String groupId, String memberId, String groupInstanceId, int generationId, String clientId,
                                          String clientHost, Map<TopicPartition, CommittedOffset> offsets, Predicate<String> stillExists) {
            throw new AssertionError("no commit in these tests");
        }
    }
}
