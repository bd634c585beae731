package io.purgatory.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * purgatory-kafka, built for Kafka 4.4.0, first on the classpath of a Kafka 4.3.1 broker: the broker logs one
 * WARN naming both versions, and then serves as it would on 4.4.0, on our purgatory (4.3.1 calls no member of
 * these classes that 4.4.0 lacks).
 */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VersionMismatchTest {

    @Test
    void aKafka431BrokerOnTheModuleWarnsNamingBothVersionsAndServesAcksAllProduceOnOurPurgatory() throws Exception {
        ClusterSpec spec = ClusterSpec.threeNodes(TestRuntimes.module("4.3.1"), TestRuntimes.clusterDirectory("module-on-kafka-4.3.1"))
                .withNodes(1);
        try (KafkaCluster cluster = KafkaCluster.start(spec)) {
            KafkaNode broker = cluster.node(0);
            List<String> warnings = ModuleClusterTest.ModuleLog.lines(broker).stream().filter(line -> line.contains("] WARN ")).toList();
            assertEquals(1, warnings.size(), "one WARN from the module: " + warnings);
            assertTrue(warnings.get(0).contains("4.4.0") && warnings.get(0).contains("4.3.1"), "the WARN names both versions: " + warnings);
            try (NodeJmx jmx = cluster.jmx(broker)) {
                assertFalse(jmx.names(KafkaCluster.OUR_PURGATORIES).isEmpty(), "our purgatories serve the 4.3.1 broker");
            }

            cluster.createTopic("on-4.3.1", 1, 1, Map.of());
            try (KafkaProducer<String, String> producer = Clients.producer(cluster, Map.of())) {
                for (int i = 0; i < 1_000; i++) {
                    producer.send(new ProducerRecord<>("on-4.3.1", "v" + i));
                }
                producer.flush();
            }
            List<String> read = new ArrayList<>();
            TopicPartition partition = new TopicPartition("on-4.3.1", 0);
            try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster, Map.of())) {
                consumer.assign(List.of(partition));
                while (read.size() < 1_000) {
                    consumer.poll(Duration.ofMillis(500)).forEach(r -> read.add(r.value()));
                }
            }
            assertEquals(IntStream.range(0, 1_000).mapToObj(i -> "v" + i).toList(), read);
        }
    }
}
