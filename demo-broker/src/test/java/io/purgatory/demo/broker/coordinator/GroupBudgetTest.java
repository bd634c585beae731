package io.purgatory.demo.broker.coordinator;

import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.MemoryBudget.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Groups and committed offsets in the memory budget: what they count, what a client gets past their
 * shares, that what goes gives its room back; and the group caps counted per client id at one
 * address and per address.
 */
class GroupBudgetTest {
    private static final String METADATA = "m".repeat(250);
    /** What one offset with {@link #METADATA} counts. */
    private static final long OFFSET_BYTES = GroupOffsets.OFFSET_OVERHEAD_BYTES + 2L * METADATA.length();
    /** Ten such offsets fill the offsets' share (an eighth); three groups of two-character ids fill the groups' share (a sixteenth). */
    private static final long LIMIT = 8 * 10 * OFFSET_BYTES;
    private static final String HOST = "/10.0.0.1";

    private final MemoryBudget budget = new MemoryBudget(LIMIT);
    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinatorConfig(6_000, 300_000, 0, 3, 100, 300_000, 4096, 600_000, 4, 6), budget);

    @AfterEach
    void close() {
        coordinator.close();
    }

    private OffsetResult commit(String group, String clientId, String host, Map<TopicPartition, CommittedOffset> offsets) {
        return coordinator.commitOffsets(group, "", null, -1, clientId, host, offsets, topic -> true);
    }

    private static Map<TopicPartition, CommittedOffset> offsets(int from, int to, String metadata) {
        Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
        for (int p = from; p < to; p++) {
            offsets.put(new TopicPartition("t", p), new CommittedOffset(p, -1, metadata, 0));
        }
        return offsets;
    }

    @Test
    void aCommitPastTheOffsetsShareGetsCoordinatorNotAvailableForThePartitionsThatDoNotFit() {
        assertTrue(budget.shareBytes(Kind.OFFSETS) >= 10 * OFFSET_BYTES && budget.shareBytes(Kind.OFFSETS) < 11 * OFFSET_BYTES);
        OffsetResult first = commit("g", "c", HOST, offsets(0, 8, METADATA));
        assertEquals(Errors.NONE, first.error(new TopicPartition("t", 7)));

        OffsetResult second = commit("g", "c", HOST, offsets(8, 12, METADATA));

        assertEquals(Errors.NONE, second.error(new TopicPartition("t", 9)));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, second.error(new TopicPartition("t", 10)));
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, second.error(new TopicPartition("t", 11)));
        assertEquals(10, coordinator.admin().fetchOffsets("g", null).size(), "the refused offsets are not kept");
        assertEquals(10 * OFFSET_BYTES, budget.used(Kind.OFFSETS));
        assertEquals(1, budget.refusals(Kind.OFFSETS), "one refusal counted per commit");
    }

    @Test
    void aCommitReplacingOffsetsWithNoLongerMetadataIsTakenWhenTheShareIsFull() {
        commit("g", "c", HOST, offsets(0, 10, METADATA));

        OffsetResult again = commit("g", "c", HOST, offsets(0, 10, "short"));

        assertEquals(Errors.NONE, again.error(new TopicPartition("t", 3)));
        assertEquals(10 * (GroupOffsets.OFFSET_OVERHEAD_BYTES + 2L * "short".length()), budget.used(Kind.OFFSETS),
                "the shorter metadata gave its room back");
    }

    @Test
    void deletingAGroupGivesItsOffsetsAndItselfBack() {
        commit("g", "c", HOST, offsets(0, 10, METADATA));
        assertEquals(GroupRegistry.heldBytes("g"), budget.used(Kind.GROUPS));

        assertEquals(Map.of("g", Errors.NONE), coordinator.admin().deleteGroups(List.of("g")));

        assertEquals(0, budget.used(Kind.OFFSETS));
        assertEquals(0, budget.used(Kind.GROUPS));
        assertEquals(Errors.NONE, commit("h", "c", HOST, offsets(0, 10, METADATA)).error(new TopicPartition("t", 9)));
    }

    @Test
    void aCommitPastTheOffsetsShareEvictsTheOldestGroupWithoutMembersTheCommittersOwnFirst() {
        commit("mine", "c", "/10.0.0.2", offsets(0, 1, ""));
        commit("flood", "f", HOST, offsets(0, 9, METADATA));

        OffsetResult more = commit("flood2", "f", HOST, offsets(0, 9, METADATA));

        assertEquals(Errors.NONE, more.error(new TopicPartition("t", 8)));
        assertEquals(Map.of(), coordinator.admin().fetchOffsets("flood", null), "the flooding address's own group went");
        assertEquals(1, coordinator.admin().fetchOffsets("mine", null).size(), "another address's group stays");
    }

    @Test
    void aNewGroupPastTheGroupsShareEvictsTheOldestGroupWithoutMembers() {
        long share = budget.shareBytes(Kind.GROUPS);
        assertTrue(share >= 3 * GroupRegistry.heldBytes("g1") && share < 4 * GroupRegistry.heldBytes("g1"), "three groups fill the share");
        for (int g = 1; g <= 3; g++) {
            assertEquals(Errors.NONE, commit("g" + g, "c", HOST, offsets(0, 1, "")).error(new TopicPartition("t", 0)));
        }

        assertEquals(Errors.NONE, commit("g4", "c", HOST, offsets(0, 1, "")).error(new TopicPartition("t", 0)));

        assertEquals(Map.of(), coordinator.admin().fetchOffsets("g1", null), "the oldest went");
        assertEquals(3, coordinator.groupCount());
    }

    @Test
    void whenEveryGroupHeldHasMembersANewGroupGetsCoordinatorNotAvailableAndTheHeldOnesAreServed() {
        for (int g = 1; g <= 3; g++) {
            coordinator.joinGroup(join("g" + g), (short) 3, "c", HOST, answer -> { }); // v3: a member at once, no member id round trip
        }
        assertEquals(3, coordinator.groupCount());

        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, commit("g4", "c", HOST, offsets(0, 1, "")).groupError());
        List<JoinGroupResponseData> answers = new ArrayList<>();
        coordinator.joinGroup(join("g5"), (short) 3, "c", HOST, answers::add);

        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), answers.get(0).errorCode(), "a JoinGroup that would create a group too");
        assertEquals(2, budget.refusals(Kind.GROUPS));
        assertEquals(3, coordinator.groupCount());
    }

    private static JoinGroupRequestData join(String group) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {1}));
        return new JoinGroupRequestData().setGroupId(group).setMemberId(JoinGroupRequest.UNKNOWN_MEMBER_ID).setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000).setProtocolType("consumer").setProtocols(protocols);
    }
}
