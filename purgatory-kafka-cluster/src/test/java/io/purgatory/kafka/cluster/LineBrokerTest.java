package io.purgatory.kafka.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real broker of each older Kafka line (one combined KRaft node, Kafka's jars from Maven Central) with that line's
 * purgatory-kafka jar first on its classpath: the module's INFO line names the line, our MBeans are registered, and
 * the broker serves acks=all produce, a consumer group and long-poll fetches that park and expire on the module's
 * Fetch purgatory. The newest line (4.4) runs the three-broker cluster tests instead ({@link ModuleClusterTest}).
 *
 * <p>Kafka 3.9's purgatory is Kafka's own (Scala, in kafka_2.13) and its jar replaces the timer alone: there the
 * Fetch purgatory parks on Kafka's watch lists, our timer's thread runs under it, and its expiries are Kafka's
 * {@code DelayedFetchMetrics} meter (an expiry is Kafka's {@code run()}, called by our timer).
 */
@Tag("integration")
class LineBrokerTest {

    private static final int RECORDS = 200;

    @ParameterizedTest(name = "Kafka {0} on its line's jar")
    @ValueSource(strings = {"3.9.1", "4.0.2", "4.1.2", "4.2.1", "4.3.1"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aBrokerOfTheLineServesOnItsJar(String kafkaVersion) throws Exception {
        ClusterSpec spec = ClusterSpec.threeNodes(TestRuntimes.moduleOfLine(kafkaVersion),
                TestRuntimes.clusterDirectory("line-" + kafkaVersion)).withNodes(1);
        try (KafkaCluster cluster = KafkaCluster.start(spec)) {
            KafkaNode broker = cluster.node(0);
            String line = kafkaVersion.substring(0, kafkaVersion.lastIndexOf('.'));
            List<String> ours = ModuleClusterTest.ModuleLog.lines(broker);
            assertEquals(1, ours.size(), "one line from the module: " + ours);
            assertTrue(ours.get(0).contains("] INFO purgatory-kafka ") && ours.get(0).contains("built for Kafka " + line + " (")
                    && ours.get(0).contains("running on Kafka " + kafkaVersion), ours.get(0));

            cluster.createTopic("on-" + kafkaVersion, 1, 1, Map.of());
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            try (KafkaProducer<String, String> producer = Clients.producer(cluster, Map.of())) {
                for (int i = 0; i < RECORDS; i++) {
                    acks.add(producer.send(new ProducerRecord<>("on-" + kafkaVersion, "v" + i)));
                }
                producer.flush();
                for (int i = 0; i < RECORDS; i++) {
                    assertEquals(i, acks.get(i).get(30, TimeUnit.SECONDS).offset(), "acks=all record " + i);
                }
            }

            boolean timerOnly = kafkaVersion.startsWith("3.");
            String fetch = timerOnly ? "kafka.server:type=DelayedFetchMetrics,name=ExpiresPerSec,fetcherType=consumer"
                    : "io.purgatory:type=DelayedOperationPurgatory,name=" + ObjectName.quote("Fetch-broker0");
            String expired = timerOnly ? "Count" : "Expired";
            try (NodeJmx jmx = cluster.jmx(broker);
                 KafkaConsumer<String, String> consumer = Clients.consumer(cluster, Map.of(
                         ConsumerConfig.GROUP_ID_CONFIG, "group-" + kafkaVersion,
                         ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1 << 20,
                         ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 300))) {
                if (timerOnly) {
                    assertTrue(jmx.threadNames().contains(KafkaCluster.OUR_FETCH_TIMER_THREAD), "our timer under Kafka's Fetch purgatory");
                } else {
                    assertTrue(jmx.names(KafkaCluster.OUR_PURGATORIES).size() > 0, "our purgatories' MBeans");
                }
                consumer.subscribe(List.of("on-" + kafkaVersion));
                List<String> read = new ArrayList<>();
                await("the group reads every record").atMost(Duration.ofSeconds(60))
                        .until(() -> {
                            consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                            return read.size() >= RECORDS;
                        });
                assertEquals(IntStream.range(0, RECORDS).mapToObj(i -> "v" + i).toList(), read);
                consumer.commitSync();
                long expiredBefore = jmx.longAttribute(fetch, expired);
                await("long-poll fetches park and expire on the module's Fetch purgatory or timer").atMost(Duration.ofSeconds(60))
                        .until(() -> {
                            consumer.poll(Duration.ofMillis(200));
                            return jmx.longAttribute(fetch, expired) > expiredBefore;
                        });
            }
        }
    }
}
