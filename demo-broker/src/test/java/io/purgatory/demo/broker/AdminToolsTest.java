package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own tools against the broker, as a user runs them: {@code kafka-topics},
 * {@code kafka-configs} and {@code kafka-delete-records} (kafka-tools 4.4.0, in process), each
 * checked by what it prints and by what the broker then holds.
 */
@Tag("integration")
class AdminToolsTest {
    @RegisterExtension
    final BrokerExtension fixture = new BrokerExtension();
    private DemoBroker broker;
    private String server;

    @BeforeEach
    void start() throws Exception {
        broker = fixture.start(BrokerConfig.builder());
        server = "localhost:" + broker.port();
    }

    private KafkaTools.Run topics(String... args) {
        return KafkaTools.topics(withServer(args));
    }

    private KafkaTools.Run configs(String... args) {
        return KafkaTools.configs(withServer(args));
    }

    private String[] withServer(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = server;
        System.arraycopy(args, 0, all, 2, args.length);
        return all;
    }

    private static KafkaTools.Run succeeded(KafkaTools.Run run) {
        assertEquals(0, run.exitCode(), run::toString);
        return run;
    }

    @Test
    void kafkaTopicsListsCreatesDescribesAltersAndDeletesTopics() {
        assertEquals("demo\n", succeeded(topics("--list")).out());

        assertEquals("Created topic orders.\n",
                succeeded(topics("--create", "--topic", "orders", "--partitions", "4", "--config", "min.insync.replicas=3")).out());
        assertEquals("demo\norders\n", succeeded(topics("--list")).out());
        String described = succeeded(topics("--describe", "--topic", "orders")).out();
        assertTrue(described.contains("Topic: orders\tTopicId: " + broker.replicaManager().topics().topic("orders").id()
                + "\tPartitionCount: 4\tReplicationFactor: 3\tConfigs: "), described);
        assertTrue(described.contains("min.insync.replicas=3"), described);
        assertTrue(described.contains("Topic: orders\tPartition: 3\tLeader: 0\tReplicas: 0,1,2\tIsr: 0,1,2"), described);

        succeeded(topics("--alter", "--topic", "orders", "--partitions", "6"));
        assertEquals(6, broker.replicaManager().topics().topic("orders").partitions().size());
        assertTrue(succeeded(topics("--describe", "--topic", "orders")).out().contains("PartitionCount: 6"));

        KafkaTools.Run again = topics("--create", "--topic", "orders", "--partitions", "1");
        assertNotEquals(0, again.exitCode());
        assertTrue(again.all().contains("Topic 'orders' already exists."), again::toString);
        KafkaTools.Run fewer = topics("--alter", "--topic", "orders", "--partitions", "2");
        assertNotEquals(0, fewer.exitCode());
        assertTrue(fewer.all().contains("currently has 6 partition(s); 2 would not be an increase"), fewer::toString);

        succeeded(topics("--delete", "--topic", "orders"));
        assertEquals("demo\n", succeeded(topics("--list")).out());
        assertEquals(null, broker.replicaManager().topics().topic("orders"));
    }

    @Test
    void kafkaTopicsRefusesWhatKafkaRefuses() {
        KafkaTools.Run badName = topics("--create", "--topic", "bad name", "--partitions", "1");
        assertNotEquals(0, badName.exitCode());
        assertTrue(badName.all().contains("contains one or more characters other than ASCII alphanumerics"), badName::toString);
        KafkaTools.Run tooManyReplicas = topics("--create", "--topic", "wide", "--partitions", "1", "--replication-factor", "4");
        assertNotEquals(0, tooManyReplicas.exitCode());
        assertTrue(tooManyReplicas.all().contains("Unable to replicate the partition 4 time(s)"), tooManyReplicas::toString);
        KafkaTools.Run unknownConfig = topics("--create", "--topic", "cleaned", "--config", "cleanup.policy=compact");
        assertNotEquals(0, unknownConfig.exitCode());
        assertTrue(unknownConfig.all().contains("Unknown topic config name: cleanup.policy"), unknownConfig::toString);
        KafkaTools.Run badValue = topics("--create", "--topic", "strict", "--config", "min.insync.replicas=0");
        assertNotEquals(0, badValue.exitCode());
        assertTrue(badValue.all().contains("Invalid value 0 for configuration min.insync.replicas"), badValue::toString);
        assertEquals("demo\n", succeeded(topics("--list")).out(), "nothing was created");
    }

    @Test
    void kafkaConfigsDescribesAndAltersTopicAndBrokerConfigs() {
        assertEquals("Dynamic configs for topic demo are:\n",
                succeeded(configs("--describe", "--entity-type", "topics", "--entity-name", "demo")).out());
        assertEquals("Completed updating config for topic demo.\n", succeeded(configs("--alter", "--entity-type", "topics",
                "--entity-name", "demo", "--add-config", "min.insync.replicas=3")).out());
        assertEquals("""
                Dynamic configs for topic demo are:
                  min.insync.replicas=3 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=3, \
                STATIC_BROKER_CONFIG:min.insync.replicas=2}
                """, succeeded(configs("--describe", "--entity-type", "topics", "--entity-name", "demo")).out());
        assertEquals(3, broker.replicaManager().partition("demo", 0).config().minInsyncReplicas());

        succeeded(configs("--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.bytes=1000000"));
        String all = succeeded(configs("--describe", "--all", "--entity-type", "brokers", "--entity-name", "0")).out();
        assertTrue(all.contains("log.retention.bytes=1000000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.bytes=1000000,"
                + " STATIC_BROKER_CONFIG:log.retention.bytes=67108864}"), all);
        assertEquals(1_000_000, broker.replicaManager().partition("demo", 0).config().retentionBytes());

        succeeded(configs("--alter", "--entity-type", "topics", "--entity-name", "demo", "--delete-config", "min.insync.replicas"));
        assertEquals(2, broker.replicaManager().partition("demo", 0).config().minInsyncReplicas(), "back to the broker's value");

        KafkaTools.Run unknown = configs("--alter", "--entity-type", "topics", "--entity-name", "demo", "--add-config", "segment.bytes=1000");
        assertNotEquals(0, unknown.exitCode());
        assertTrue(unknown.all().contains("Unknown topic config name: segment.bytes"), unknown::toString);
    }

    @Test
    void kafkaDeleteRecordsMovesTheLogStartAndConsumersBelowItGetOffsetOutOfRange(@TempDir Path dir) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("demo", 0, "k", "v" + i)).get();
            }
        }
        Path offsets = Files.writeString(dir.resolve("offsets.json"),
                "{\"partitions\": [{\"topic\": \"demo\", \"partition\": 0, \"offset\": 6}], \"version\": 1}");
        KafkaTools.Run run = KafkaTools.deleteRecords("--bootstrap-server", server, "--offset-json-file", offsets.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("partition: demo-0\tlow_watermark: 6"), run::toString);
        assertEquals(6, broker.replicaManager().partition("demo", 0).lowWatermark(), "every in-sync replica moved its log start");

        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"))) {
            TopicPartition demo0 = new TopicPartition("demo", 0);
            consumer.assign(List.of(demo0));
            assertEquals(Map.of(demo0, 6L), consumer.beginningOffsets(List.of(demo0)));
            consumer.seek(demo0, 2);
            assertThrows(OffsetOutOfRangeException.class, () -> {
                for (int i = 0; i < 50; i++) {
                    consumer.poll(Duration.ofMillis(100));
                }
            });
            consumer.seek(demo0, 6);
            List<String> values = new java.util.ArrayList<>();
            Waits.soon().until(() -> {
                consumer.poll(Duration.ofMillis(50)).forEach(record -> values.add(record.value()));
                return values.size() == 4;
            });
            assertEquals(List.of("v6", "v7", "v8", "v9"), values);
        }
    }
}
