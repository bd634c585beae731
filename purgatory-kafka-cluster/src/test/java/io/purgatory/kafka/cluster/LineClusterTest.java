package io.purgatory.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three brokers of one older Kafka line, each with that line's purgatory-kafka jar first on its classpath: the
 * module's classes serve every broker, the cluster serves acks=all produce and a consumer group that loses a member
 * to SIGKILL, and no broker logs a linkage error. The lean form of {@link ClusterBehaviourTest}, which runs the
 * newest line (4.4) on stock Kafka and on the module in full; one subclass per line.
 *
 * <p>The tests share the subclass's cluster, in order; the linkage check comes last, over everything the brokers
 * logged.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class LineClusterTest {

    abstract KafkaCluster cluster();

    @Test
    @Order(0)
    void everyBrokerRunsTheJarOfItsLine() throws IOException {
        String version = cluster().spec().runtime().kafkaVersion();
        String line = version.substring(0, version.lastIndexOf('.'));
        for (KafkaNode node : cluster().nodes()) {
            List<String> ours = ModuleClusterTest.ModuleLog.lines(node);
            assertEquals(1, ours.size(), "node " + node.id() + ": one line from the module: " + ours);
            assertTrue(ours.get(0).contains("] INFO purgatory-kafka ") && ours.get(0).contains("built for Kafka " + line + " (")
                    && ours.get(0).contains("running on Kafka " + version), "node " + node.id() + ": " + ours.get(0));
            try (NodeJmx jmx = cluster().jmx(node)) {
                assertFalse(jmx.names(KafkaCluster.OUR_PURGATORIES).isEmpty(), "our purgatories' MBeans on node " + node.id());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(GroupProtocol.class)
    @Order(1)
    void acksAllRecordsAreAllReadByAGroupThatLosesAMemberToSigkill(GroupProtocol protocol) throws Exception {
        KilledGroupMember.check(cluster(), protocol);
    }

    @Test
    @Order(2)
    void noBrokerLogsALinkageError() throws IOException {
        for (KafkaNode node : cluster().nodes()) {
            assertEquals(List.of(), LinkageErrors.in(node), "linkage errors in " + node.logFile());
        }
    }
}
