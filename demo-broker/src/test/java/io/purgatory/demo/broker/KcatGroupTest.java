package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * librdkafka's balanced consumer, {@code kcat -G} (installed at /usr/bin/kcat, as CI installs it):
 * two of them in one group split the topic's partitions between them and read every record once.
 */
@Tag("integration")
class KcatGroupTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic("demo", 4).groupInitialRebalanceDelayMs(1_000));

    @Test
    void twoBalancedKcatConsumersSplitATopicAndReadEveryRecord(DemoBroker broker) throws Exception {
        Set<String> values = new HashSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all"))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                acks.add(producer.send(new ProducerRecord<>("demo", i % 4, null, "v" + i)));
                values.add("v" + i);
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(20, TimeUnit.SECONDS);
            }
        }
        // -e: each exits once its assigned partitions are read to the end
        List<Process> kcats = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            kcats.add(new ProcessBuilder("kcat", "-b", "localhost:" + broker.port(), "-G", "kc", "demo", "-o", "beginning", "-e",
                    "-f", "%p %s\\n", "-q").redirectError(ProcessBuilder.Redirect.DISCARD).start());
        }
        List<List<String>> outputs = new ArrayList<>();
        for (Process kcat : kcats) {
            assertTrue(kcat.waitFor(60, TimeUnit.SECONDS), "kcat -G -e exits after reading its partitions");
            outputs.add(new String(kcat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList());
        }
        List<String> read = new ArrayList<>();
        List<Set<String>> partitions = new ArrayList<>();
        for (List<String> output : outputs) {
            Set<String> mine = new HashSet<>();
            output.forEach(line -> {
                mine.add(line.split(" ")[0]);
                read.add(line.split(" ")[1]);
            });
            partitions.add(mine);
            assertFalse(mine.isEmpty(), "each consumer got partitions: " + outputs);
        }
        assertTrue(partitions.get(0).stream().noneMatch(partitions.get(1)::contains), "no partition read by both: " + partitions);
        assertEquals(values.size(), read.size(), "every record read once");
        assertEquals(values, Set.copyOf(read));
        assertEquals(Set.of(), Set.copyOf(broker.coordinator().admin().describeGroup("kc").members()), "both left the group on exit");
    }
}
