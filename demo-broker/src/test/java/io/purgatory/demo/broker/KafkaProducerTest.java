package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real Kafka Java producer (kafka-clients 4.4.0) against the demo broker. */
@Tag("integration")
class KafkaProducerTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private KafkaProducer<String, String> producer(Map<String, Object> overrides) {
        Map<String, Object> config = new java.util.HashMap<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000));
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    private static RecordMetadata acknowledged(Future<RecordMetadata> future) {
        Waits.soon().until(future::isDone);
        try {
            return future.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("not acknowledged", e);
        }
    }

    @Test
    void acksAllWithoutRetriesIsAcknowledgedWithIncreasingOffsets() throws Exception {
        broker = brokers.start(BrokerConfig.builder().topic("demo", 3));
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.RETRIES_CONFIG, 0))) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                sent.add(producer.send(new ProducerRecord<>("demo", 1, null, "value-" + i)));
            }
            long previous = -1;
            for (Future<RecordMetadata> future : sent) {
                RecordMetadata metadata = acknowledged(future);
                assertEquals(1, metadata.partition());
                assertTrue(metadata.offset() > previous, "offsets increase: " + metadata.offset() + " after " + previous);
                previous = metadata.offset();
            }
        }
        assertEquals(20, broker.replicaManager().partition("demo", 1).leaderEndOffset());
    }

    @Test
    void theDefaultIdempotentProducerIsAcknowledged() throws Exception {
        broker = brokers.get();
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            RecordMetadata metadata = acknowledged(producer.send(new ProducerRecord<>("demo", 0, "key", "value")));
            assertEquals(0, metadata.offset());
        }
    }

    @Test
    void aStalledReplicaGivesTheProducerATimeoutError() throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2));
        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.RETRIES_CONFIG, 0,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000))) {
            Future<RecordMetadata> future = producer.send(new ProducerRecord<>("demo", 0, null, "value"));
            Waits.soon().until(future::isDone);
            ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, future::get);
            assertInstanceOf(TimeoutException.class, failure.getCause(), failure.getCause().toString());
        }
        // the producer gave up first and closed its connection, which took the parked produce out of the purgatory
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 0);
        assertEquals(1, broker.replicaManager().producePurgatoryMetrics().expired() + broker.replicaManager().producePurgatoryMetrics().completed());
    }

    @Test
    void anIdempotentProducersBatchSentAgainAfterATimeoutIsStoredOnce() throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2)); // acks=all waits until it is resumed
        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000))) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            sent.add(producer.send(new ProducerRecord<>("demo", 0, null, "value-0")));
            Waits.soon().until(() -> broker.stats().requests().getOrDefault(ApiKeys.PRODUCE, 0L) >= 3); // sent, timed out, sent again twice
            for (int i = 1; i < 10; i++) {
                sent.add(producer.send(new ProducerRecord<>("demo", 0, null, "value-" + i)));
            }
            broker.followers().resume(2);
            for (int i = 0; i < sent.size(); i++) {
                assertEquals(i, acknowledged(sent.get(i)).offset(), "each record at its own offset, once");
            }
        }
        assertEquals(10, broker.replicaManager().partition("demo", 0).leaderEndOffset(), "no batch stored twice");
    }
}
