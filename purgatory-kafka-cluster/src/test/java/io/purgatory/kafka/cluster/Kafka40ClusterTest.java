package io.purgatory.kafka.cluster;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LineClusterTest} on three brokers of Kafka 4.0.2 with the 4.0 jar first on each one's classpath. */
class Kafka40ClusterTest extends LineClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.moduleOfLine("4.0.2");

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }
}
