package io.purgatory.kafka.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A consumer group of three on a topic of three partitions (replication factor 3, min.insync.replicas 2), one of
 * its members a JVM of its own ({@link ForkedMember}) that is killed with SIGKILL while the group reads. What a
 * user checks: the idempotent acks=all producer has every record acked once, at consecutive offsets, before and
 * after the kill; the group coordinator finds the member dead when its session times out (a timer on the
 * broker), and the two members left take its partitions over and read every record, those the killed member
 * had been given included (no member commits, so a partition that changes hands is read from its start); the
 * group ends with those two members holding every partition.
 *
 * <p>Not thread-safe: one test thread runs it.
 */
final class KilledGroupMember {

    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_ROUND = 300;
    private static final Duration CLIENT_WAIT = Duration.ofMinutes(2);

    private KilledGroupMember() {
    }

    /**
     * Runs the scenario on a topic and group of its own, named after the protocol.
     *
     * @param cluster a cluster whose brokers allow a consumer-protocol session of {@value ForkedMember#SESSION_TIMEOUT_MS}
     *     ms ({@code group.consumer.min.session.timeout.ms})
     */
    static void check(KafkaCluster cluster, GroupProtocol protocol) throws Exception {
        String name = "killed-member-" + protocol.name().toLowerCase(Locale.ROOT);
        cluster.createTopic(name, PARTITIONS, 3, Map.of("min.insync.replicas", "2"));
        if (protocol == GroupProtocol.CONSUMER) {
            // the consumer protocol's session timeout is the group's (45 s by default)
            cluster.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, name), List.of(
                    new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", String.valueOf(ForkedMember.SESSION_TIMEOUT_MS)),
                            AlterConfigOp.OpType.SET)))).all().get(1, TimeUnit.MINUTES);
        }
        Map<TopicPartition, Set<Long>> read = new ConcurrentHashMap<>();
        Map<TopicPartition, List<Long>> produced = new HashMap<>();
        try (ForkedMember doomed = ForkedMember.start(cluster, name, name, protocol);
             ConsumerLoops survivors = new ConsumerLoops()) {
            for (int i = 0; i < 2; i++) {
                survivors.start(Clients.consumer(cluster, Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG, name,
                        ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name())),
                        consumer -> consumer.subscribe(List.of(name)),
                        (consumer, records) -> records.forEach(r -> read.computeIfAbsent(
                                new TopicPartition(r.topic(), r.partition()), p -> ConcurrentHashMap.newKeySet()).add(r.offset())));
            }
            await("the group has 3 members, each with a partition").atMost(CLIENT_WAIT).ignoreExceptions()
                    .until(() -> members(cluster, name).size() == 3
                            && members(cluster, name).stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty()));
            Set<TopicPartition> doomedPartitions = members(cluster, name).stream().filter(m -> m.clientId().equals(doomed.clientId()))
                    .flatMap(m -> m.assignment().topicPartitions().stream()).collect(Collectors.toSet());
            assertTrue(!doomedPartitions.isEmpty(), "the member to kill holds a partition");

            produce(cluster, name, 0, produced);
            doomed.kill();
            produce(cluster, name, RECORDS_PER_ROUND, produced);

            await("the two members left read every record, those of the killed member's partitions " + doomedPartitions + " included")
                    .atMost(CLIENT_WAIT)
                    .until(() -> produced.entrySet().stream().allMatch(e -> read.getOrDefault(e.getKey(), Set.of()).containsAll(e.getValue()))
                            || survivors.failed());
            survivors.assertNoFailure();
            await("the group has the two members left, holding every partition").atMost(CLIENT_WAIT).ignoreExceptions()
                    .until(() -> {
                        List<MemberDescription> members = members(cluster, name);
                        return members.size() == 2
                                && members.stream().flatMap(m -> m.assignment().topicPartitions().stream()).distinct().count() == PARTITIONS;
                    });
        }
        assertEquals(PARTITIONS, produced.size(), "records went to every partition");
        produced.forEach((partition, offsets) -> {
            assertEquals(LongStream.range(0, offsets.size()).boxed().toList(), offsets,
                    "offsets of " + partition + ", in the order they were acked");
            assertEquals(new TreeSet<>(offsets), new TreeSet<>(read.get(partition)), "offsets of " + partition + " read by the group");
        });
    }

    /**
     * Sends {@value #RECORDS_PER_ROUND} records with an idempotent acks=all producer and adds each one's offset to
     * {@code produced}, in the order acked, after checking that every one was acked once.
     */
    private static void produce(KafkaCluster cluster, String topic, int first, Map<TopicPartition, List<Long>> produced) {
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<RecordMetadata> acks = Collections.synchronizedList(new ArrayList<>());
        try (KafkaProducer<String, String> producer = Clients.producer(cluster, Map.of())) {
            for (int i = first; i < first + RECORDS_PER_ROUND; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i), (metadata, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    } else {
                        acks.add(metadata);
                    }
                });
            }
            producer.flush();
        }
        assertEquals(null, failure.get(), "no send failed");
        assertEquals(RECORDS_PER_ROUND, acks.size(), "every record acked once");
        acks.forEach(m -> produced.computeIfAbsent(new TopicPartition(m.topic(), m.partition()), p -> new ArrayList<>()).add(m.offset()));
    }

    private static List<MemberDescription> members(KafkaCluster cluster, String group) throws Exception {
        ConsumerGroupDescription description = cluster.admin().describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get(15, TimeUnit.SECONDS);
        return List.copyOf(description.members());
    }
}
