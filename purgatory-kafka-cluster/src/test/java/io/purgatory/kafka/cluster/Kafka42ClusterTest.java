package io.purgatory.kafka.cluster;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link LineClusterTest} on three brokers of Kafka 4.2.1 with the 4.2 jar first on each one's classpath. */
class Kafka42ClusterTest extends LineClusterTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.moduleOfLine("4.2.1");

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }
}
