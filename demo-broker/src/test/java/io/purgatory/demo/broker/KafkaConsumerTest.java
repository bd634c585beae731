package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real Kafka Java consumer (kafka-clients 4.4.0, {@code assign()}) reads back what the real producer had acked. */
@Tag("integration")
class KafkaConsumerTest {
    private static final List<TopicPartition> PARTITIONS = List.of(
            new TopicPartition("demo", 0), new TopicPartition("demo", 1), new TopicPartition("demo", 2));

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    /** A record as the producer sent it and the broker acked it, or as the consumer read it. */
    private record Seen(int partition, long offset, String key, String value, String header) {
        static Seen of(ConsumerRecord<String, String> record) {
            var header = record.headers().lastHeader("trace");
            return new Seen(record.partition(), record.offset(), record.key(), record.value(),
                    header == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
    }

    private KafkaProducer<String, String> producer(String compression) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000));
    }

    private KafkaConsumer<String, String> consumer() {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
        return new KafkaConsumer<>(config);
    }

    /** Sends {@code count} records round-robin over the partitions and returns them as acked. */
    private List<Seen> produceAndAck(KafkaProducer<String, String> producer, int count) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        List<ProducerRecord<String, String>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("trace", ("trace-" + i).getBytes(StandardCharsets.UTF_8));
            ProducerRecord<String, String> record =
                    new ProducerRecord<>("demo", i % 3, "key-" + i, "value-" + i + "-" + "x".repeat(i % 50), headers);
            sent.add(record);
            futures.add(producer.send(record));
        }
        List<Seen> acked = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RecordMetadata metadata = get(futures.get(i));
            ProducerRecord<String, String> record = sent.get(i);
            acked.add(new Seen(metadata.partition(), metadata.offset(), record.key(), record.value(), "trace-" + i));
        }
        return acked;
    }

    private static RecordMetadata get(Future<RecordMetadata> future) {
        Waits.soon().until(future::isDone);
        try {
            return future.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("not acknowledged", e);
        }
    }

    /** Polls from the beginning of every partition until {@code count} records came back. */
    private static List<Seen> consumeFromBeginning(KafkaConsumer<String, String> consumer, int count) {
        consumer.assign(PARTITIONS);
        consumer.seekToBeginning(PARTITIONS);
        List<Seen> consumed = new ArrayList<>();
        Waits.soon().until(() -> {
            consumer.poll(Duration.ofMillis(100)).forEach(record -> consumed.add(Seen.of(record)));
            return consumed.size() >= count;
        });
        return consumed;
    }

    /** Per partition, in offset order: what the consumer must see. */
    private static List<Seen> byPartitionInOrder(List<Seen> seen) {
        List<Seen> sorted = new ArrayList<>(seen);
        sorted.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition()) : Long.compare(a.offset(), b.offset()));
        return sorted;
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "lz4", "zstd", "snappy"})
    void theConsumerReadsBackExactlyWhatWasAckedInOrder(String compression) throws Exception {
        broker = brokers.get();
        final List<Seen> acked;
        try (KafkaProducer<String, String> producer = producer(compression)) {
            acked = produceAndAck(producer, 300);
        }
        try (KafkaConsumer<String, String> consumer = consumer()) {
            List<Seen> consumed = consumeFromBeginning(consumer, acked.size());
            List<Seen> perPartitionOrder = new ArrayList<>();
            for (TopicPartition partition : PARTITIONS) {
                consumed.stream().filter(seen -> seen.partition() == partition.partition()).forEach(perPartitionOrder::add);
            }
            assertEquals(byPartitionInOrder(acked), perPartitionOrder, "each partition's records, in offset order, as acked");
            assertEquals(Map.of(PARTITIONS.get(0), 100L, PARTITIONS.get(1), 100L, PARTITIONS.get(2), 100L), consumer.endOffsets(PARTITIONS));
            assertEquals(Map.of(PARTITIONS.get(0), 0L, PARTITIONS.get(1), 0L, PARTITIONS.get(2), 0L), consumer.beginningOffsets(PARTITIONS));
        }
    }

    @Test
    void recordsAreInvisibleToTheConsumerUntilTheStalledFollowerResumes() throws Exception {
        broker = brokers.start(BrokerConfig.builder().topic("demo", 3).stallReplica(2));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false));
             KafkaConsumer<String, String> consumer = consumer()) {
            for (int i = 0; i < 10; i++) {
                get(producer.send(new ProducerRecord<>("demo", 0, "key-" + i, "value-" + i)));
            }
            assertEquals(10, broker.replicaManager().partition("demo", 0).leaderEndOffset(), "the leader has them all");
            consumer.assign(List.of(PARTITIONS.get(0)));
            consumer.seekToBeginning(List.of(PARTITIONS.get(0)));
            for (int poll = 0; poll < 5; poll++) {
                assertTrue(consumer.poll(Duration.ofMillis(200)).isEmpty(), "nothing is committed while replica 2 stalls");
            }
            assertEquals(0L, consumer.endOffsets(List.of(PARTITIONS.get(0))).get(PARTITIONS.get(0)), "the high watermark has not moved");

            broker.followers().resume(2);

            List<Seen> consumed = new ArrayList<>();
            Waits.soon().until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> consumed.add(Seen.of(record)));
                return consumed.size() >= 10;
            });
            assertEquals(10, consumed.size());
            for (int i = 0; i < 10; i++) {
                assertEquals(new Seen(0, i, "key-" + i, "value-" + i, null), consumed.get(i));
            }
        }
    }
}
