package io.purgatory.kafka.cluster;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ClusterBehaviourTest} on three brokers of stock Kafka 4.4.0. */
class StockClusterTest extends ClusterBehaviourTest {

    @RegisterExtension
    static final KafkaClusterExtension CLUSTER = KafkaClusterExtension.stock();

    @Override
    KafkaCluster cluster() {
        return CLUSTER.cluster();
    }
}
