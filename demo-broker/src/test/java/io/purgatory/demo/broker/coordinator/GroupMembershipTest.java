package io.purgatory.demo.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.timer.MockTimer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each of the four member operations of {@link GroupMembership} on its own, against the real
 * coordinator on manual time ({@link MockTimer}): what one JoinGroup, SyncGroup, Heartbeat or
 * LeaveGroup does to a group, starting from nothing or from the one-member group the test builds.
 */
class GroupMembershipTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    private static final int INITIAL_DELAY_MS = 3_000;
    /** JoinGroup v3: a first join gets its member id with the answer, not MEMBER_ID_REQUIRED first. */
    private static final short JOIN_V3 = 3;

    private final MockTimer timer = new MockTimer();
    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinatorConfig(6_000, 300_000, INITIAL_DELAY_MS, 3, 5, 300_000, 100, 600_000, 4, 5),
            DelayedOperationPurgatory.<DelayedOperation>builder("rebalance-membership-test").timer(timer).reaperEnabled(false).build(),
            DelayedOperationPurgatory.<DelayedHeartbeat>builder("heartbeat-membership-test").timer(timer).reaperEnabled(false).build(),
            timer::nowMs);
    private final GroupMembership membership = coordinator;
    private final List<JoinGroupResponseData> joins = new ArrayList<>();
    private final List<SyncGroupResponseData> syncs = new ArrayList<>();

    @AfterEach
    void close() {
        coordinator.close();
        timer.close();
    }

    // ------------------------------------------------------------------ JoinGroup

    @Test
    void aJoinWaitsForTheInitialDelayThenStartsGenerationOneWithTheJoinerAsLeader() {
        membership.joinGroup(join("g", ""), JOIN_V3, "client", "/127.0.0.1", joins::add);
        assertEquals(List.of(), joins, "parked in the InitialDelayedJoin");

        timer.advance(INITIAL_DELAY_MS);

        assertEquals(1, joins.size());
        JoinGroupResponseData answer = joins.get(0);
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(1, answer.generationId());
        assertEquals(answer.memberId(), answer.leader());
        assertEquals(List.of(answer.memberId()), answer.members().stream().map(m -> m.memberId()).toList());
        assertEquals(GroupState.COMPLETING_REBALANCE, coordinator.admin().describeGroup("g").state());
    }

    @Test
    void aJoinWithASessionTimeoutOutOfRangeIsRefusedAtOnceAndCreatesNoGroup() {
        membership.joinGroup(join("g", "").setSessionTimeoutMs(1), JOIN_V3, "client", "/127.0.0.1", joins::add);

        assertEquals(List.of(Errors.INVALID_SESSION_TIMEOUT.code()), joins.stream().map(JoinGroupResponseData::errorCode).toList());
        assertEquals(0, coordinator.groupCount());
    }

    // ------------------------------------------------------------------ SyncGroup

    @Test
    void theLeadersSyncIsAnsweredAtOnceWithItsAssignmentAndTheGroupIsStable() {
        JoinGroupResponseData joined = oneMemberGroup();

        membership.syncGroup(sync(joined, new byte[] {7}), syncs::add);

        assertEquals(1, syncs.size());
        assertEquals(Errors.NONE.code(), syncs.get(0).errorCode());
        assertArrayEquals(new byte[] {7}, syncs.get(0).assignment());
        assertEquals(GroupState.STABLE, coordinator.admin().describeGroup("g").state());
    }

    @Test
    void aSyncToAGroupThatDoesNotExistIsToldTheMemberIsUnknown() {
        membership.syncGroup(new SyncGroupRequestData().setGroupId("nope").setMemberId("m").setGenerationId(1), syncs::add);

        assertEquals(List.of(Errors.UNKNOWN_MEMBER_ID.code()), syncs.stream().map(SyncGroupResponseData::errorCode).toList());
        assertEquals(0, coordinator.groupCount());
    }

    // ------------------------------------------------------------------ Heartbeat

    @Test
    void aHeartbeatKeepsTheSessionAndWithoutOneTheMemberIsRemovedAtTheSessionTimeout() {
        JoinGroupResponseData joined = oneMemberGroup();
        membership.syncGroup(sync(joined, new byte[0]), syncs::add);

        timer.advance(SESSION_MS - 1);
        assertEquals(Errors.NONE, membership.heartbeat("g", joined.memberId(), null, joined.generationId()));
        timer.advance(SESSION_MS - 1);
        assertEquals(0, coordinator.membersExpired(), "each heartbeat starts the session again");

        timer.advance(1);

        assertEquals(1, coordinator.membersExpired());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, membership.heartbeat("g", joined.memberId(), null, joined.generationId()));
    }

    @Test
    void aHeartbeatOfAnOlderGenerationIsRefused() {
        JoinGroupResponseData joined = oneMemberGroup();

        assertEquals(Errors.ILLEGAL_GENERATION, membership.heartbeat("g", joined.memberId(), null, joined.generationId() - 1));
        assertEquals(Errors.INVALID_GROUP_ID, membership.heartbeat("", joined.memberId(), null, joined.generationId()));
    }

    // ------------------------------------------------------------------ LeaveGroup

    @Test
    void theLastMemberLeavingEmptiesTheGroupWhichThenGoes() {
        JoinGroupResponseData joined = oneMemberGroup();
        membership.syncGroup(sync(joined, new byte[0]), syncs::add);

        List<MemberResponse> left = membership.leaveGroup("g", List.of(new MemberIdentity().setMemberId(joined.memberId())));

        assertEquals(List.of(Errors.NONE.code()), left.stream().map(MemberResponse::errorCode).toList());
        assertEquals(0, coordinator.groupCount(), "empty, with no offsets: removed at once");
    }

    @Test
    void leavingAGroupThatDoesNotExistAnswersEachMemberUnknown() {
        List<MemberResponse> left = membership.leaveGroup("nope", List.of(new MemberIdentity().setMemberId("a"),
                new MemberIdentity().setMemberId("b")));

        assertEquals(List.of("a", "b"), left.stream().map(MemberResponse::memberId).toList());
        assertEquals(List.of(Errors.UNKNOWN_MEMBER_ID.code(), Errors.UNKNOWN_MEMBER_ID.code()),
                left.stream().map(MemberResponse::errorCode).toList());
    }

    /** One member joined and answered: generation 1, it leads, the group awaits its SyncGroup. */
    private JoinGroupResponseData oneMemberGroup() {
        membership.joinGroup(join("g", ""), JOIN_V3, "client", "/127.0.0.1", joins::add);
        timer.advance(INITIAL_DELAY_MS);
        assertEquals(1, joins.size());
        return joins.remove(0);
    }

    private static JoinGroupRequestData join(String groupId, String memberId) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {1}));
        return new JoinGroupRequestData().setGroupId(groupId).setMemberId(memberId).setSessionTimeoutMs(SESSION_MS)
                .setRebalanceTimeoutMs(REBALANCE_MS).setProtocolType("consumer").setProtocols(protocols);
    }

    private static SyncGroupRequestData sync(JoinGroupResponseData joined, byte[] assignment) {
        return new SyncGroupRequestData().setGroupId("g").setMemberId(joined.memberId()).setGenerationId(joined.generationId())
                .setProtocolType("consumer").setProtocolName("range")
                .setAssignments(List.of(new SyncGroupRequestAssignment().setMemberId(joined.memberId()).setAssignment(assignment)));
    }
}
