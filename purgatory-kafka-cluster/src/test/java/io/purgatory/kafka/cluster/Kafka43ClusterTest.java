package io.purgatory.kafka.cluster;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LineClusterTest} on three brokers of Kafka 4.3.1 with the 4.3 jar first on each one's classpath. */
class Kafka43ClusterTest extends LineClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.moduleOfLine("4.3.1");

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }
}
