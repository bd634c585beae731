package io.purgatory.kafka.cluster;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LineClusterTest} on three brokers of Kafka 4.1.2 with the 4.1 jar first on each one's classpath. */
class Kafka41ClusterTest extends LineClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.moduleOfLine("4.1.2");

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }
}
