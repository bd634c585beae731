package io.purgatory.demo.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.timer.MockTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The classic group state machine on manual time: every wait (initial delay, rebalance timeout,
 * sync timeout, session timeout) is a delayed operation that {@link MockTimer#advance} expires.
 */
class GroupCoordinatorTest {
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;
    private static final int INITIAL_DELAY_MS = 3_000;
    private static final short V5 = 5;
    private static final long RETENTION_MS = 600_000;

    private final MockTimer timer = new MockTimer();
    private final DelayedOperationPurgatory<DelayedOperation> rebalance =
            DelayedOperationPurgatory.<DelayedOperation>builder("rebalance-test").timer(timer).reaperEnabled(false).build();
    private final DelayedOperationPurgatory<DelayedHeartbeat> heartbeat =
            DelayedOperationPurgatory.<DelayedHeartbeat>builder("heartbeat-test").timer(timer).reaperEnabled(false).build();
    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinatorConfig(6_000, 300_000, INITIAL_DELAY_MS, 3, 5, 300_000, 100, RETENTION_MS, 4, 5), rebalance, heartbeat, timer::nowMs);
    private final GroupAdmin admin = coordinator.admin();

    @AfterEach
    void close() {
        coordinator.close();
        timer.close();
    }

    /** A client's view: its member id, generation and the answers it got. */
    private final class Client {
        private final String instanceId;
        String memberId = "";
        int generation = -1;
        private final List<JoinGroupResponseData> joins = new ArrayList<>();
        private final List<SyncGroupResponseData> syncs = new ArrayList<>();

        Client(String instanceId) {
            this.instanceId = instanceId;
        }

        /** Sends a JoinGroup; a MEMBER_ID_REQUIRED answer is followed at once by the second join, as clients do. */
        void join(byte[] metadata) {
            coordinator.joinGroup(request(metadata), V5, "client", "/127.0.0.1", this::onJoin);
        }

        private JoinGroupRequestData request(byte[] metadata) {
            JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
            protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
            return new JoinGroupRequestData().setGroupId("g").setMemberId(memberId).setGroupInstanceId(instanceId)
                    .setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(REBALANCE_MS).setProtocolType("consumer").setProtocols(protocols);
        }

        private void onJoin(JoinGroupResponseData r) {
            joins.add(r);
            if (r.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                memberId = r.memberId();
                join(new byte[] {1});
            } else if (r.errorCode() == Errors.NONE.code()) {
                memberId = r.memberId();
                generation = r.generationId();
            }
        }

        JoinGroupResponseData lastJoin() {
            return joins.get(joins.size() - 1);
        }

        boolean isLeader() {
            return memberId.equals(lastJoin().leader());
        }

        void sync(Map<String, byte[]> assignments) {
            List<SyncGroupRequestAssignment> list = new ArrayList<>();
            assignments.forEach((id, bytes) -> list.add(new SyncGroupRequestAssignment().setMemberId(id).setAssignment(bytes)));
            coordinator.syncGroup(new SyncGroupRequestData().setGroupId("g").setMemberId(memberId).setGroupInstanceId(instanceId)
                    .setGenerationId(generation).setProtocolType("consumer").setProtocolName("range").setAssignments(list), syncs::add);
        }

        Errors heartbeat() {
            return coordinator.heartbeat("g", memberId, instanceId, generation);
        }

        Errors leave() {
            return Errors.forCode(coordinator.leaveGroup("g", List.of(new MemberIdentity().setMemberId(memberId))).get(0).errorCode());
        }
    }

    private GroupSummary group() {
        return admin.describeGroup("g");
    }

    /** Two dynamic members joined in the initial delay and synced: a stable generation 1. */
    private List<Client> stableGroupOfTwo() {
        Client a = new Client(null);
        Client b = new Client(null);
        a.join(new byte[] {1});
        b.join(new byte[] {1});
        timer.advance(2 * INITIAL_DELAY_MS); // b joined during the first delay: it is extended once
        Client leader = a.isLeader() ? a : b;
        Client follower = leader == a ? b : a;
        follower.sync(Map.of());
        leader.sync(Map.of(a.memberId, new byte[] {10}, b.memberId, new byte[] {20}));
        assertEquals(GroupState.STABLE, group().state());
        return List.of(a, b);
    }

    @Test
    void firstJoinIsToldItsMemberIdThenWaitsForTheInitialDelay() {
        Client a = new Client(null);
        a.join(new byte[] {1});
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), a.joins.get(0).errorCode());
        assertEquals(1, a.joins.size(), "the second join is parked in the InitialDelayedJoin");
        assertEquals(GroupState.PREPARING_REBALANCE, group().state());

        timer.advance(INITIAL_DELAY_MS - 1);
        assertEquals(1, a.joins.size());
        timer.advance(1);
        JoinGroupResponseData answer = a.lastJoin();
        assertEquals(Errors.NONE.code(), answer.errorCode());
        assertEquals(1, answer.generationId());
        assertEquals(a.memberId, answer.leader());
        assertEquals("range", answer.protocolName());
        assertEquals(1, answer.members().size());
        assertEquals(GroupState.COMPLETING_REBALANCE, group().state());
    }

    @Test
    void aMemberJoiningDuringTheInitialDelayExtendsItAndLandsInTheSameGeneration() {
        Client a = new Client(null);
        Client b = new Client(null);
        a.join(new byte[] {1});
        timer.advance(INITIAL_DELAY_MS - 1);
        b.join(new byte[] {1});
        timer.advance(1); // the first delay ends; b came meanwhile: another delay
        assertEquals(1, a.joins.size());
        timer.advance(INITIAL_DELAY_MS);
        assertEquals(1, a.lastJoin().generationId());
        assertEquals(1, b.lastJoin().generationId());
        Client leader = a.isLeader() ? a : b;
        Client follower = leader == a ? b : a;
        assertEquals(2, leader.lastJoin().members().size());
        assertEquals(0, follower.lastJoin().members().size(), "only the leader gets the members");
    }

    @Test
    void theLeadersSyncGivesEveryMemberItsAssignment() {
        List<Client> clients = stableGroupOfTwo();
        assertArrayEquals(new byte[] {10}, clients.get(0).syncs.get(0).assignment());
        assertArrayEquals(new byte[] {20}, clients.get(1).syncs.get(0).assignment());
        assertEquals("range", clients.get(0).syncs.get(0).protocolName());
        assertEquals(1, coordinator.rebalances());
    }

    @Test
    void heartbeatsKeepMembersAndAMemberThatStopsIsExpiredAfterItsSessionTimeout() {
        List<Client> clients = stableGroupOfTwo();
        Client alive = clients.get(0);
        timer.advance(SESSION_MS - 1);
        assertEquals(Errors.NONE, alive.heartbeat());
        assertEquals(GroupState.STABLE, group().state());
        timer.advance(1); // the other one has not heartbeaten since its sync: its session runs out
        assertEquals(GroupState.PREPARING_REBALANCE, group().state());
        assertEquals(1, coordinator.membersExpired());
        assertEquals(Errors.REBALANCE_IN_PROGRESS, alive.heartbeat());
        alive.join(new byte[] {1}); // every known member rejoined: the DelayedJoin completes at once
        assertEquals(2, alive.generation);
        assertEquals(1, group().members().size());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, clients.get(1).heartbeat());
    }

    @Test
    void aMemberThatDoesNotRejoinIsRemovedAtTheRebalanceTimeout() {
        List<Client> clients = stableGroupOfTwo();
        Client rejoining = clients.get(0);
        rejoining.join(new byte[] {2}); // new metadata: a rebalance
        assertEquals(GroupState.PREPARING_REBALANCE, group().state());
        for (int elapsed = 0; elapsed < REBALANCE_MS - SESSION_MS / 2; elapsed += SESSION_MS / 2) {
            timer.advance(SESSION_MS / 2);
            assertEquals(Errors.REBALANCE_IN_PROGRESS, clients.get(1).heartbeat(), "it heartbeats but never rejoins");
        }
        int joinsBefore = rejoining.joins.size();
        timer.advance(SESSION_MS / 2);
        assertEquals(joinsBefore + 1, rejoining.joins.size());
        assertEquals(2, rejoining.generation);
        assertEquals(1, group().members().size());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, clients.get(1).heartbeat());
    }

    @Test
    void aMemberThatNeverSendsSyncGroupIsRemovedAtTheRebalanceTimeout() {
        Client a = new Client(null);
        Client b = new Client(null);
        a.join(new byte[] {1});
        b.join(new byte[] {1});
        timer.advance(2 * INITIAL_DELAY_MS); // b joined during the first delay: it is extended once
        Client leader = a.isLeader() ? a : b;
        Client silent = leader == a ? b : a;
        leader.sync(Map.of(a.memberId, new byte[] {10}, b.memberId, new byte[] {20}));
        assertEquals(GroupState.STABLE, group().state());
        for (int elapsed = 0; elapsed < REBALANCE_MS; elapsed += 5_000) {
            assertEquals(Errors.NONE, leader.heartbeat());
            assertEquals(Errors.NONE, silent.heartbeat(), "it heartbeats, so its session does not expire; it never syncs");
            timer.advance(5_000);
        }
        assertEquals(GroupState.PREPARING_REBALANCE, group().state(), "the DelayedSync expired and removed the silent member");
        assertEquals(List.of(leader.memberId), group().members().stream().map(GroupSummary.Member::memberId).toList());
        assertTrue(silent.syncs.isEmpty());
    }

    @Test
    void aStaticMemberRestartingWithinItsSessionGetsItsAssignmentBackWithoutARebalance() {
        Client a = new Client("instance-a");
        Client b = new Client("instance-b");
        a.join(new byte[] {1});
        b.join(new byte[] {1});
        assertTrue(a.joins.isEmpty(), "a static member is not asked for a member id: its join is parked at once");
        timer.advance(2 * INITIAL_DELAY_MS);
        Client leader = a.isLeader() ? a : b;
        Client follower = leader == a ? b : a;
        leader.sync(Map.of(a.memberId, new byte[] {10}, b.memberId, new byte[] {20}));
        follower.sync(Map.of());
        byte[] followerAssignment = follower.syncs.get(0).assignment();

        Client restarted = new Client(follower.instanceId);
        timer.advance(SESSION_MS / 2);
        restarted.join(new byte[] {1});
        assertEquals(Errors.NONE.code(), restarted.lastJoin().errorCode());
        assertEquals(1, restarted.generation, "no new generation");
        assertNotEquals(follower.memberId, restarted.memberId);
        restarted.sync(Map.of());
        assertArrayEquals(followerAssignment, restarted.syncs.get(0).assignment());
        assertEquals(GroupState.STABLE, group().state());
        assertEquals(1, coordinator.rebalances());
        assertEquals(Errors.FENCED_INSTANCE_ID, follower.heartbeat(), "the old incarnation is fenced");
        assertEquals(Errors.NONE, leader.heartbeat());
    }

    @Test
    void requestsOutOfBoundsGetKafkasErrors() {
        Client a = new Client(null);
        JoinGroupRequestData tooShort = a.request(new byte[] {1}).setSessionTimeoutMs(10);
        List<JoinGroupResponseData> answers = new ArrayList<>();
        coordinator.joinGroup(tooShort, V5, "c", "h", answers::add);
        coordinator.joinGroup(a.request(new byte[] {1}).setSessionTimeoutMs(1_000_000), V5, "c", "h", answers::add);
        coordinator.joinGroup(a.request(new byte[] {1}).setGroupId("x".repeat(32 * 1024)), V5, "c", "h", answers::add);
        coordinator.joinGroup(a.request(new byte[] {1}).setMemberId("made-up"), V5, "c", "h", answers::add);
        assertEquals(List.of(Errors.INVALID_SESSION_TIMEOUT, Errors.INVALID_SESSION_TIMEOUT, Errors.INVALID_GROUP_ID, Errors.UNKNOWN_MEMBER_ID),
                answers.stream().map(r -> Errors.forCode(r.errorCode())).toList());
        assertEquals(0, coordinator.groupCount(), "no group was created for them");
        assertEquals(Errors.UNKNOWN_MEMBER_ID, coordinator.heartbeat("g", "nobody", null, 1));
    }

    @Test
    void staleGenerationsAndUnknownMembersAreRefused() {
        List<Client> clients = stableGroupOfTwo();
        Client a = clients.get(0);
        assertEquals(Errors.ILLEGAL_GENERATION, coordinator.heartbeat("g", a.memberId, null, 0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, coordinator.heartbeat("g", "nobody", null, 1));
        List<SyncGroupResponseData> syncs = new ArrayList<>();
        coordinator.syncGroup(new SyncGroupRequestData().setGroupId("g").setMemberId(a.memberId).setGenerationId(7), syncs::add);
        assertEquals(Errors.ILLEGAL_GENERATION.code(), syncs.get(0).errorCode());
        assertEquals(Errors.NONE, a.heartbeat());
    }

    @Test
    void aSyncFromANonLeaderCarryingAssignmentsChangesNothing() {
        Client a = new Client(null);
        Client b = new Client(null);
        a.join(new byte[] {1});
        b.join(new byte[] {1});
        timer.advance(2 * INITIAL_DELAY_MS); // b joined during the first delay: it is extended once
        Client leader = a.isLeader() ? a : b;
        Client follower = leader == a ? b : a;
        follower.sync(Map.of(follower.memberId, new byte[] {66}, leader.memberId, new byte[] {66}));
        assertTrue(follower.syncs.isEmpty(), "it waits for the leader");
        leader.sync(Map.of(leader.memberId, new byte[] {1}, follower.memberId, new byte[] {2}));
        assertArrayEquals(new byte[] {2}, follower.syncs.get(0).assignment());
        assertArrayEquals(new byte[] {1}, leader.syncs.get(0).assignment());
    }

    @Test
    void theGroupSizeIsCappedPendingMembersIncluded() {
        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Client c = new Client(null);
            c.join(new byte[] {1});
            clients.add(c);
        }
        assertEquals(List.of(Errors.GROUP_MAX_SIZE_REACHED, Errors.GROUP_MAX_SIZE_REACHED),
                clients.subList(3, 5).stream().map(c -> Errors.forCode(c.lastJoin().errorCode())).toList());
        timer.advance(INITIAL_DELAY_MS);
        assertEquals(3, group().members().size());
    }

    @Test
    void pendingMembersThatNeverComeBackLeaveAfterTheirSessionTimeout() {
        for (int i = 0; i < 3; i++) {
            coordinator.joinGroup(new Client(null).request(new byte[] {1}), V5, "c", "h", r -> { });
        }
        assertEquals(1, coordinator.groupCount());
        timer.advance(SESSION_MS);
        assertEquals(0, coordinator.groupCount(), "an empty group without offsets is removed");
        assertEquals(0, heartbeat.numDelayed());
    }

    @Test
    void leavingRebalancesTheOthersAndTheLastOneLeavesOffsetsBehind() {
        List<Client> clients = stableGroupOfTwo();
        Client a = clients.get(0);
        Client b = clients.get(1);
        TopicPartition p0 = new TopicPartition("t", 0);
        assertEquals(Errors.NONE, coordinator.commitOffsets("g", a.memberId, null, 1, "client", Map.of(p0, new CommittedOffset(42, -1, "m", 0)))
                .error(p0));
        assertEquals(Errors.NONE, b.leave());
        assertEquals(GroupState.PREPARING_REBALANCE, group().state());
        a.join(new byte[] {1});
        assertEquals(2, a.generation);
        assertEquals(Errors.NONE, a.leave());
        assertEquals(GroupState.EMPTY, group().state());
        assertEquals(42, admin.fetchOffsets("g", List.of(p0)).get(p0).offset(), "offsets survive the group becoming empty");
        assertEquals(Map.of("g", Errors.NONE), admin.deleteGroups(List.of("g")));
        assertNull(group());
        assertTrue(admin.fetchOffsets("g", null).isEmpty());
    }

    @Test
    void offsetCommitsAreValidatedAsKafkaDoes() {
        TopicPartition p0 = new TopicPartition("t", 0);
        Map<TopicPartition, CommittedOffset> commit = Map.of(p0, new CommittedOffset(5, -1, "", 0));
        assertEquals(Errors.NONE, coordinator.commitOffsets("simple", "", null, -1, "client", commit).error(p0), "anyone may commit to an empty group");
        assertEquals(Errors.ILLEGAL_GENERATION, coordinator.commitOffsets("none", "m", null, 3, "client", commit).groupError());
        assertEquals(Errors.OFFSET_METADATA_TOO_LARGE,
                coordinator.commitOffsets("simple", "", null, -1, "client", Map.of(p0, new CommittedOffset(6, -1, "x".repeat(101), 0))).error(p0));
        assertEquals(5, admin.fetchOffsets("simple", null).get(p0).offset());
        List<Client> clients = stableGroupOfTwo();
        assertEquals(Errors.UNKNOWN_MEMBER_ID, coordinator.commitOffsets("g", "", null, -1, "client", commit).groupError(),
                "a group with members takes commits from its members only");
        assertEquals(Errors.ILLEGAL_GENERATION, coordinator.commitOffsets("g", clients.get(0).memberId, null, 0, "client", commit).groupError());
        assertEquals(Map.of("g", Errors.NON_EMPTY_GROUP, "nope", Errors.GROUP_ID_NOT_FOUND), admin.deleteGroups(List.of("g", "nope")));
    }

    @Test
    void aFullGroupCapEvictsTheGroupLongestWithoutMembersSoOffsetOnlyGroupsCannotKeepNewGroupsOut() {
        TopicPartition p0 = new TopicPartition("t", 0);
        for (int i = 0; i < 5; i++) {
            assertEquals(Errors.NONE, coordinator.commitOffsets("g" + i, "", null, -1, "client" + i, Map.of(p0, new CommittedOffset(1, -1, "", 0)))
                    .error(p0));
            timer.advance(1);
        }
        assertEquals(Errors.NONE, coordinator.commitOffsets("g0", "", null, -1, "client0", Map.of(p0, new CommittedOffset(2, -1, "", 0)))
                .error(p0), "a commit to an existing group does not refresh how long it has had no members");

        assertEquals(Errors.NONE, coordinator.commitOffsets("g5", "", null, -1, "client5", Map.of(p0, new CommittedOffset(1, -1, "", 0)))
                .error(p0), "past --max-groups: the group longest without members makes room");
        assertEquals(Map.of(), admin.fetchOffsets("g0", null), "g0 went, with its offsets");
        assertEquals(1, admin.fetchOffsets("g1", null).size());
        List<JoinGroupResponseData> answers = new ArrayList<>();
        coordinator.joinGroup(new Client(null).request(new byte[] {1}).setGroupId("g6"), V5, "c", "h", answers::add);
        assertEquals(Errors.MEMBER_ID_REQUIRED.code(), answers.get(0).errorCode(), "a new consumer group gets in too");
        assertEquals(Map.of(), admin.fetchOffsets("g1", null), "g1 went for it");
        assertEquals(5, coordinator.groupCount());
    }

    @Test
    void aClientClaimingAnothersClientIdCannotLockItOutOfNewGroups() {
        TopicPartition p0 = new TopicPartition("t", 0);
        Map<TopicPartition, CommittedOffset> commit = Map.of(p0, new CommittedOffset(1, -1, "", 0));
        for (int i = 0; i < 4; i++) {
            assertEquals(Errors.NONE, coordinator.commitOffsets("spoofed" + i, "", null, -1, "victim", commit).error(p0));
            timer.advance(1);
        }

        assertEquals(Errors.NONE, coordinator.commitOffsets("mine", "", null, -1, "victim", commit).error(p0),
                "past --max-groups-per-client: that client id's group longest without members makes room");
        assertEquals(Map.of(), admin.fetchOffsets("spoofed0", null));
        assertEquals(1, admin.fetchOffsets("mine", null).size());
        assertEquals(Errors.NONE, coordinator.commitOffsets("polite", "", null, -1, "polite", commit).error(p0), "another client id is not touched");
        assertEquals(1, admin.fetchOffsets("spoofed1", null).size());
    }

    @Test
    void deletingAGroupNamedTwiceAnswersOnceWithWhatItDid() {
        TopicPartition p0 = new TopicPartition("t", 0);
        coordinator.commitOffsets("simple", "", null, -1, "client", Map.of(p0, new CommittedOffset(1, -1, "", 0)));
        assertEquals(Map.of("simple", Errors.NONE), admin.deleteGroups(List.of("simple", "simple")));
        assertEquals(0, coordinator.groupCount());
    }

    @Test
    void aGroupThatNeverHadMembersLosesEachOffsetTheRetentionAfterItsCommitThenGoes() {
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        coordinator.commitOffsets("simple", "", null, -1, "client", Map.of(p0, new CommittedOffset(1, -1, "", 0)));
        timer.advance(RETENTION_MS / 2);
        coordinator.commitOffsets("simple", "", null, -1, "client", Map.of(p1, new CommittedOffset(2, -1, "", 0)));
        timer.advance(RETENTION_MS / 2 - 1);
        assertEquals(0, admin.expireOffsets(), "not yet");
        timer.advance(1);
        assertEquals(1, admin.expireOffsets());
        assertEquals(Map.of(p1, 2L), offsets("simple"));
        timer.advance(RETENTION_MS / 2);
        assertEquals(1, admin.expireOffsets());
        assertEquals(0, coordinator.groupCount(), "an empty group without offsets goes");
    }

    @Test
    void aConsumerGroupKeepsItsOffsetsWhileItHasMembersThenTheRetentionAfterItBecameEmpty() {
        List<Client> clients = stableGroupOfTwo();
        TopicPartition p0 = new TopicPartition("t", 0);
        Client a = clients.get(0);
        coordinator.commitOffsets("g", a.memberId, null, a.generation, "client", Map.of(p0, new CommittedOffset(7, -1, "", 0)));
        for (long passed = 0; passed <= RETENTION_MS; passed += SESSION_MS / 2) { // members heartbeating through a retention period
            timer.advance(SESSION_MS / 2);
            clients.forEach(Client::heartbeat);
        }
        assertEquals(0, admin.expireOffsets());
        clients.forEach(c -> c.leave());
        assertEquals(GroupState.EMPTY, group().state());
        timer.advance(RETENTION_MS - 1);
        assertEquals(0, admin.expireOffsets(), "counted from when the group became empty, not from the commit");
        timer.advance(1);
        assertEquals(1, admin.expireOffsets());
        assertEquals(0, coordinator.groupCount());
    }

    @Test
    void aDeletedTopicsOffsetsLeaveEveryGroupAtTheDelete() {
        TopicPartition gone = new TopicPartition("gone", 0);
        TopicPartition kept = new TopicPartition("kept", 0);
        coordinator.commitOffsets("both", "", null, -1, "client", Map.of(gone, new CommittedOffset(1, -1, "", 0), kept,
                new CommittedOffset(2, -1, "", 0)));
        coordinator.commitOffsets("only", "", null, -1, "client", Map.of(gone, new CommittedOffset(3, -1, "", 0)));
        assertEquals(2, admin.topicDeleted("gone"));
        assertEquals(Map.of(kept, 2L), offsets("both"));
        assertEquals(Set.of("both"), Set.copyOf(admin.listGroups(Set.of()).stream().map(GroupSummary::groupId).toList()),
                "a group left without offsets goes");
        assertEquals(0, admin.topicDeleted("gone"));
    }

    private Map<TopicPartition, Long> offsets(String groupId) {
        Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
        admin.fetchOffsets(groupId, null).forEach((p, o) -> offsets.put(p, o.offset()));
        return offsets;
    }

    @Test
    void listGroupsFiltersByState() {
        stableGroupOfTwo();
        TopicPartition p0 = new TopicPartition("t", 0);
        coordinator.commitOffsets("simple", "", null, -1, "client", Map.of(p0, new CommittedOffset(1, -1, "", 0)));
        assertEquals(Set.of("g", "simple"), Set.copyOf(admin.listGroups(Set.of()).stream().map(GroupSummary::groupId).toList()));
        assertEquals(List.of("simple"), admin.listGroups(Set.of(GroupState.EMPTY)).stream().map(GroupSummary::groupId).toList());
        assertEquals(List.of("g"), admin.listGroups(Set.of(GroupState.STABLE)).stream().map(GroupSummary::groupId).toList());
    }

    @Test
    void closingAnswersParkedRequestsWithNotCoordinatorAndRemovesNobody() {
        List<Client> clients = stableGroupOfTwo();
        Client a = clients.get(0);
        a.join(new byte[] {2}); // parked in a DelayedJoin: b has not rejoined
        int joins = a.joins.size();
        long expiredBefore = coordinator.membersExpired();
        coordinator.close();
        assertEquals(joins + 1, a.joins.size());
        assertEquals(Errors.NOT_COORDINATOR.code(), a.lastJoin().errorCode());
        assertEquals(0, rebalance.numDelayed());
        assertEquals(0, heartbeat.numDelayed());
        assertEquals(2, group().members().size(), "closing removes no member");
        assertEquals(expiredBefore, coordinator.membersExpired());
        timer.advance(REBALANCE_MS * 2);
        assertEquals(joins + 1, a.joins.size(), "nothing is answered twice");
        assertEquals(Errors.NOT_COORDINATOR, a.heartbeat());
        coordinator.close();
        assertFalse(a.joins.stream().skip(joins + 1).findAny().isPresent());
    }
}
