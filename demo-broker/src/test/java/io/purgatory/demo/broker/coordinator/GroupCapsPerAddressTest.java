package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The group caps count a client id at its address, and every client id at an address together: a
 * client claiming another's client id from elsewhere never evicts that client's groups, and rotating
 * client ids does not get one address past its cap.
 */
class GroupCapsPerAddressTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final Map<TopicPartition, CommittedOffset> COMMIT = Map.of(P0, new CommittedOffset(1, -1, "", 0));
    private static final int PER_CLIENT = 4;
    private static final int PER_ADDRESS = 6;
    private long nowMs;
    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinatorConfig(6_000, 300_000, 0, 3, 100, 300_000, 4096, 600_000, PER_CLIENT, PER_ADDRESS),
            DelayedOperationPurgatory.<DelayedOperation>builder("rebalance-caps-test").reaperEnabled(false).build(),
            DelayedOperationPurgatory.<DelayedHeartbeat>builder("heartbeat-caps-test").reaperEnabled(false).build(),
            () -> nowMs);

    @AfterEach
    void close() {
        coordinator.close();
    }

    private Errors commit(String group, String clientId, String host) {
        nowMs++; // each group memberless since its own millisecond: the oldest is well defined
        OffsetResult result = coordinator.commitOffsets(group, "", null, -1, clientId, host, COMMIT, topic -> true);
        return result.groupError() != Errors.NONE ? result.groupError() : result.error(P0);
    }

    @Test
    void aClientClaimingAnothersClientIdFromElsewhereNeverEvictsItsGroups() {
        assertEquals(Errors.NONE, commit("victims", "victim", "/10.0.0.1"));
        for (int i = 0; i < PER_CLIENT + 2; i++) {
            assertEquals(Errors.NONE, commit("spoofed" + i, "victim", "/10.0.0.2"));
        }

        assertEquals(1, coordinator.admin().fetchOffsets("victims", null).size(), "counted against the spoofer's address only");
        assertEquals(Map.of(), coordinator.admin().fetchOffsets("spoofed0", null), "the spoofer's own oldest made room");
        assertEquals(Errors.NONE, commit("victims2", "victim", "/10.0.0.1"));
    }

    @Test
    void rotatingClientIdsDoesNotGetOneAddressPastItsCap() {
        assertEquals(Errors.NONE, commit("elsewhere", "other", "/10.0.0.9"));
        for (int i = 0; i < PER_ADDRESS; i++) {
            assertEquals(Errors.NONE, commit("rotated" + i, "client" + i, "/10.0.0.3"));
        }

        assertEquals(Errors.NONE, commit("rotated" + PER_ADDRESS, "client" + PER_ADDRESS, "/10.0.0.3"));

        assertEquals(Map.of(), coordinator.admin().fetchOffsets("rotated0", null), "that address's oldest group made room");
        assertEquals(PER_ADDRESS + 1, coordinator.groupCount(), "the address holds its cap, the other address its one group");
        assertEquals(1, coordinator.admin().fetchOffsets("elsewhere", null).size());
    }
}
