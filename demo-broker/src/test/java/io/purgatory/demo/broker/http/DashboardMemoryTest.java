package io.purgatory.demo.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.CommittedOffset;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard's memory budget holds at 100,000 groups and 100,000 partitions: each sample stays
 * under {@link Sampler#MAX_SAMPLE_CHARS} and the history under its budget, measured in characters
 * of JSON (deterministic), while the sample still counts everything.
 */
@Tag("stress")
class DashboardMemoryTest {
    private static final int GROUPS = 100_000;
    private static final int PARTITIONS = 100_000;

    @Test
    void samplesAndHistoryStayBoundedAt100000GroupsAnd100000Partitions() throws Exception {
        BrokerConfig config = BrokerConfig.builder().port(0).topic("t", PARTITIONS).maxPartitions(PARTITIONS).followers(0)
                .minInsyncReplicas(1).maxGroups(GROUPS).maxGroupsPerClient(GROUPS).maxGroupsPerAddress(GROUPS).build();
        try (ReplicaManager replicaManager = new ReplicaManager(config);
             GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config))) {
            for (int g = 0; g < GROUPS; g++) {
                TopicPartition partition = new TopicPartition("t", g % PARTITIONS);
                assertEquals(Errors.NONE, coordinator.commitOffsets("group-" + g, "", null, -1, "loader",
                        Map.of(partition, new CommittedOffset(0, -1, "", 0))).error(partition));
            }
            Sampler sampler = new Sampler(replicaManager, coordinator, new BrokerStats());
            EventStream events = new EventStream(sampler::sample, 180, DashboardServer.HISTORY_BUDGET_CHARS);
            for (int tick = 0; tick < 3; tick++) {
                events.tick();
            }

            String sample = events.latest();
            assertTrue(sample.length() <= Sampler.MAX_SAMPLE_CHARS, "a sample of " + sample.length() + " characters");
            JsonNode state = new ObjectMapper().readTree(sample);
            assertEquals(GROUPS, state.get("groupCount").asInt());
            assertEquals(PARTITIONS, state.get("partitionCount").asInt());
            assertEquals(Sampler.GROUPS_SHOWN, state.get("groups").size());
            assertEquals(Sampler.PARTITIONS_SHOWN, state.get("partitions").size());
            assertTrue(events.historyChars() <= 4L * Sampler.MAX_SAMPLE_CHARS, events.historyChars() + " characters kept for 4 samples");
        }
    }
}
