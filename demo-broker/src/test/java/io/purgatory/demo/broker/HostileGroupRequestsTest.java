package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Group requests a well-behaved client never sends: each gets Kafka's error on that request only,
 * the coordinator's memory stays within its caps, and other clients on the same broker go on.
 */
@Tag("integration")
class HostileGroupRequestsTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.groupInitialRebalanceDelayMs(200).groupMaxSize(100));

    private static JoinGroupRequestData join(String group, String memberId, int sessionTimeoutMs, byte[] metadata) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        return new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(10_000).setProtocolType("consumer").setProtocols(protocols);
    }

    private static JoinGroupResponseData answer(CompletableFuture<WireClient.Answer> future) throws Exception {
        return ((JoinGroupResponse) future.get(30, TimeUnit.SECONDS).response()).data();
    }

    private static Errors heartbeat(WireClient client, String group, String memberId, int generation) throws Exception {
        HeartbeatRequestData data = new HeartbeatRequestData().setGroupId(group).setMemberId(memberId).setGenerationId(generation);
        return ((HeartbeatResponse) client.send(new HeartbeatRequest.Builder(data).build()).get(30, TimeUnit.SECONDS).response()).error();
    }

    /** A produce on another connection is still answered: the broker goes on. */
    private void othersUnaffected() throws Exception {
        WireClient other = brokers.connect();
        ProduceResponse produce = (ProduceResponse) other.send(WireClient.produce("demo", 0, (short) 1, 5_000, 3)).get(30, TimeUnit.SECONDS)
                .response();
        assertEquals(Map.of(Errors.NONE, 1), produce.errorCounts());
        RawMember member = new RawMember(other, "bystanders", 10_000, 10_000);
        assertEquals(Errors.NONE.code(), member.join("demo").errorCode());
    }

    @Test
    void sessionTimeoutsOutOfRangeAreRefused() throws Exception {
        WireClient client = brokers.connect();
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), answer(client.send(new JoinGroupRequest.Builder(join("g", "", 1, new byte[0])).build()))
                .errorCode());
        assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(),
                answer(client.send(new JoinGroupRequest.Builder(join("g", "", Integer.MAX_VALUE, new byte[0])).build())).errorCode());
        assertEquals(0, brokers.get().coordinator().groupCount());
        othersUnaffected();
    }

    @Test
    void tenThousandMembersJoiningOneGroupStopAtItsMaximumSize() throws Exception {
        List<WireClient> connections = List.of(brokers.connect(), brokers.connect(), brokers.connect(), brokers.connect());
        List<CompletableFuture<WireClient.Answer>> answers = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            answers.add(connections.get(i % 4).send(new JoinGroupRequest.Builder(join("crowd", "", 30_000, new byte[] {1})).build()));
        }
        int required = 0;
        int refused = 0;
        for (CompletableFuture<WireClient.Answer> a : answers) {
            short code = answer(a).errorCode();
            required += code == Errors.MEMBER_ID_REQUIRED.code() ? 1 : 0;
            refused += code == Errors.GROUP_MAX_SIZE_REACHED.code() ? 1 : 0;
        }
        assertEquals(100, required, "--group-max-size members are asked to rejoin with their member id");
        assertEquals(9_900, refused);
        assertEquals(100, brokers.get().coordinator().heartbeatPurgatoryMetrics().delayed(), "one session per pending member, no more");
        othersUnaffected();
    }

    @Test
    void heartbeatsFromUnknownMembersAndStaleGenerationsAreRefused() throws Exception {
        WireClient client = brokers.connect();
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat(client, "nowhere", "nobody", 1));
        RawMember member = new RawMember(client, "g", 10_000, 10_000);
        assertEquals(Errors.NONE.code(), member.join("demo").errorCode());
        assertEquals(Errors.UNKNOWN_MEMBER_ID, heartbeat(client, "g", "nobody", member.generation()));
        assertEquals(Errors.ILLEGAL_GENERATION, heartbeat(client, "g", member.memberId(), member.generation() + 5));
        assertEquals(Errors.NONE, heartbeat(client, "g", member.memberId(), member.generation()), "the real member is still fine");
        othersUnaffected();
    }

    @Test
    void aSyncGroupFromANonLeaderCarryingAssignmentsIsIgnored() throws Exception {
        WireClient a = brokers.connect();
        WireClient b = brokers.connect();
        RawMember first = new RawMember(a, "g", 10_000, 10_000);
        RawMember second = new RawMember(b, "g", 10_000, 10_000);
        assertEquals(Errors.NONE.code(), first.join("demo").errorCode()); // generation 1, alone
        CompletableFuture<JoinGroupResponseData> secondJoin = second.sendJoin(RawMember.subscription("demo"))
                .thenCompose(r -> uncheckedJoin(second));
        Waits.soon().until(() -> brokers.get().coordinator().admin().describeGroup("g").members().size() == 2);
        JoinGroupResponseData one = first.sendJoin(RawMember.subscription("demo")).get(30, TimeUnit.SECONDS); // rejoins: generation 2
        secondJoin.get(30, TimeUnit.SECONDS);
        RawMember leader = one.leader().equals(first.memberId()) ? first : second;
        RawMember follower = leader == first ? second : first;
        WireClient leaderConnection = leader == first ? a : b;
        WireClient followerConnection = leader == first ? b : a;

        CompletableFuture<WireClient.Answer> grab = followerConnection.send(new SyncGroupRequest.Builder(new SyncGroupRequestData()
                .setGroupId("g").setMemberId(follower.memberId()).setGenerationId(follower.generation())
                .setAssignments(List.of(new SyncGroupRequestAssignment().setMemberId(follower.memberId()).setAssignment(new byte[] {6, 6, 6}),
                        new SyncGroupRequestAssignment().setMemberId(leader.memberId()).setAssignment(new byte[0])))).build());
        SyncGroupResponseData leaders = ((SyncGroupResponse) leaderConnection.send(new SyncGroupRequest.Builder(new SyncGroupRequestData()
                .setGroupId("g").setMemberId(leader.memberId()).setGenerationId(leader.generation())
                .setAssignments(List.of(new SyncGroupRequestAssignment().setMemberId(follower.memberId()).setAssignment(new byte[] {2}),
                        new SyncGroupRequestAssignment().setMemberId(leader.memberId()).setAssignment(new byte[] {1})))).build())
                .get(30, TimeUnit.SECONDS).response()).data();
        assertArrayEquals(new byte[] {1}, leaders.assignment());
        assertArrayEquals(new byte[] {2}, ((SyncGroupResponse) grab.get(30, TimeUnit.SECONDS).response()).data().assignment(),
                "the follower gets what the leader assigned, not what it asked for");
        othersUnaffected();
    }

    private static CompletableFuture<JoinGroupResponseData> uncheckedJoin(RawMember member) {
        try {
            return member.sendJoin(RawMember.subscription("demo"));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Test
    void garbageProtocolMetadataIsTheGroupsOwnBusiness() throws Exception {
        byte[] garbage = new byte[4_096];
        new Random(16).nextBytes(garbage);
        WireClient client = brokers.connect();
        JoinGroupResponseData first = answer(client.send(new JoinGroupRequest.Builder(join("garbage", "", 10_000, garbage)).build()));
        JoinGroupResponseData joined = answer(client.send(new JoinGroupRequest.Builder(join("garbage", first.memberId(), 10_000, garbage)).build()));
        assertEquals(Errors.NONE.code(), joined.errorCode());
        assertArrayEquals(garbage, joined.members().get(0).metadata(), "opaque to the coordinator, handed to the leader as sent");
        othersUnaffected();
    }

    @Test
    void offsetCommitsForUnknownPartitionsFailOnThosePartitionsOnly() throws Exception {
        WireClient client = brokers.connect();
        OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId("simple").setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(
                        new OffsetCommitRequestTopic().setName("demo").setPartitions(List.of(
                                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(5),
                                new OffsetCommitRequestPartition().setPartitionIndex(99).setCommittedOffset(5))),
                        new OffsetCommitRequestTopic().setName("no-such-topic").setPartitions(List.of(
                                new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(5)))));
        OffsetCommitResponse response = (OffsetCommitResponse) client.send(new OffsetCommitRequest(data, (short) 9))
                .get(30, TimeUnit.SECONDS).response();
        List<Short> codes = response.data().topics().stream().flatMap(t -> t.partitions().stream()).map(p -> p.errorCode()).toList();
        assertEquals(List.of(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code()), codes);
        assertEquals(1, brokers.get().coordinator().admin().describeGroup("simple").offsets().size(), "only the real partition's offset is kept");
        othersUnaffected();
    }

    @Test
    void aGroupIdOfThirtyTwoKibibytesIsInvalid() throws Exception {
        String huge = "g".repeat(Short.MAX_VALUE); // the longest string the protocol can carry
        WireClient client = brokers.connect();
        assertEquals(Errors.INVALID_GROUP_ID.code(), answer(client.send(new JoinGroupRequest.Builder(join(huge, "", 10_000, new byte[0])).build()))
                .errorCode());
        assertEquals(Errors.INVALID_GROUP_ID, heartbeat(client, huge, "m", 1));
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId(huge).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestTopic().setName("demo").setPartitions(List.of(
                        new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(5)))));
        OffsetCommitResponse response = (OffsetCommitResponse) client.send(new OffsetCommitRequest(commit, (short) 9))
                .get(30, TimeUnit.SECONDS).response();
        assertEquals(Map.of(Errors.INVALID_GROUP_ID, 1), response.errorCounts());
        assertEquals(0, brokers.get().coordinator().groupCount(), "nothing of it is kept");
        othersUnaffected();
        assertTrue(brokers.clients().stream().allMatch(c -> c.protocolErrors().isEmpty()));
    }
}
