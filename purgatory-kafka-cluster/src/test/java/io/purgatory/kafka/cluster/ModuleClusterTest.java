package io.purgatory.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ClusterBehaviourTest} on three brokers of Kafka 4.4.0 with purgatory-kafka first on each one's
 * classpath; and the module says so in every broker's log.
 */
class ModuleClusterTest extends ClusterBehaviourTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.module();

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }

    @Test
    @Order(0)
    void everyBrokerLogsThatPurgatoryKafkaIsOnForTheKafkaItRuns() throws IOException {
        for (KafkaNode node : cluster().nodes()) {
            List<String> moduleLines = ModuleLog.lines(node);
            assertTrue(moduleLines.stream().anyMatch(line -> line.contains("] INFO purgatory-kafka ") && line.contains("running on Kafka 4.4.0")),
                    "node " + node.id() + " logs that purgatory-kafka is on: " + moduleLines);
            assertEquals(List.of(), moduleLines.stream().filter(line -> line.contains("] WARN ")).toList(),
                    "node " + node.id() + ": no version warning on the Kafka the module was built for");
        }
    }

    /** The lines that purgatory-kafka's {@code ModuleInfo} logged in a node's log. */
    static final class ModuleLog {
        private ModuleLog() {
        }

        static List<String> lines(KafkaNode node) throws IOException {
            return Files.readAllLines(node.logFile()).stream().filter(line -> line.endsWith("(io.purgatory.kafka.ModuleInfo)")).toList();
        }
    }
}
