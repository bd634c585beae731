package io.purgatory.demo.broker;

import static io.purgatory.demo.broker.Waits.soon;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.coordinator.GroupState;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real KafkaConsumers (kafka-clients 4.4.0) that {@code subscribe()} in a group on the demo broker:
 * the partitions are split, every record is read once, and members that leave, crash or restart
 * are handled as a Kafka broker would, with the coordinator's delayed operations doing the waiting.
 */
@Tag("integration")
class ConsumerGroupTest {
    private static final String TOPIC = "demo";
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic(TOPIC, 3).groupSessionTimeoutMs(500, 1_800_000)
            .groupInitialRebalanceDelayMs(300));

    private DemoBroker broker;
    private KafkaProducer<String, String> producer;
    private final List<GroupConsumer> consumers = new ArrayList<>();
    private final ConcurrentLinkedQueue<GroupConsumer.Read> reads = new ConcurrentLinkedQueue<>();
    private int produced;

    @BeforeEach
    void start() throws Exception {
        broker = brokers.get();
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all"));
    }

    @AfterEach
    void stop() throws Exception {
        for (GroupConsumer consumer : consumers) {
            consumer.close();
        }
        producer.close();
    }

    private GroupConsumer consumer(String name, Map<String, Object> extra) {
        GroupConsumer consumer = new GroupConsumer(name, broker.port(), "g", TOPIC, reads, extra);
        consumers.add(consumer);
        return consumer;
    }

    /** Produces {@code count} records round-robin over the three partitions, acked by all replicas. */
    private void produce(int count) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            acks.add(producer.send(new ProducerRecord<>(TOPIC, produced % 3, "k" + produced, "v" + produced)));
            produced++;
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(20, TimeUnit.SECONDS);
        }
    }

    /** Waits until the consumers have read every record produced, then checks that none was read twice. */
    private void everyRecordReadOnce() {
        soon().atMost(Duration.ofSeconds(60)).until(() -> distinctReads() == produced);
        Map<List<Long>, Long> counts = reads.stream()
                .collect(Collectors.groupingBy(r -> List.of((long) r.partition(), r.offset()), Collectors.counting()));
        assertEquals(Map.of(), counts.entrySet().stream().filter(e -> e.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), "records read more than once");
        consumers.forEach(c -> assertNull(c.failure()));
    }

    private long distinctReads() {
        return reads.stream().map(r -> List.of((long) r.partition(), r.offset())).distinct().count();
    }

    /** Waits until the live consumers share the three partitions, each holding one at least, and the group is stable. */
    private void balanced(List<GroupConsumer> live) {
        soon().atMost(Duration.ofSeconds(60)).until(() -> {
            Set<TopicPartition> all = new HashSet<>();
            int total = 0;
            for (GroupConsumer c : live) {
                if (c.assignment().isEmpty()) {
                    return false;
                }
                all.addAll(c.assignment());
                total += c.assignment().size();
            }
            return all.size() == 3 && total == 3 && broker.coordinator().admin().describeGroup("g").state() == GroupState.STABLE;
        });
    }

    @Test
    void threeSubscribedConsumersSplitThePartitionsAndReadEveryRecordOnce() throws Exception {
        GroupConsumer a = consumer("a", Map.of());
        GroupConsumer b = consumer("b", Map.of());
        GroupConsumer c = consumer("c", Map.of());
        balanced(List.of(a, b, c));
        produce(90);
        everyRecordReadOnce();
        for (GroupConsumer consumer : List.of(a, b, c)) {
            assertEquals(1, consumer.assignment().size());
            int partition = consumer.assignment().iterator().next().partition();
            assertTrue(reads.stream().filter(r -> r.partition() == partition).allMatch(r -> r.member().equals(consumer.name())));
        }

        a.close(); // a dynamic member leaves: LeaveGroup, a rebalance, b and c take its partition
        consumers.remove(a);
        balanced(List.of(b, c));
        produce(30);
        everyRecordReadOnce();
        assertEquals(3, b.assignment().size() + c.assignment().size());
    }

    @Test
    void aMemberThatStopsHeartbeatingIsExpiredAndTheOthersTakeOver() throws Exception {
        GroupConsumer a = consumer("a", Map.of());
        GroupConsumer b = consumer("b", Map.of());
        balanced(List.of(a, b));
        produce(30);
        everyRecordReadOnce();

        WireClient connection = brokers.connect();
        RawMember crashing = new RawMember(connection, "g", 2_000, 10_000);
        JoinGroupResponseData joined = crashing.join(TOPIC); // the others rejoin on their next heartbeat
        assertEquals(Errors.NONE.code(), joined.errorCode());
        SyncGroupResponseData synced = crashing.sync();
        assertEquals(Errors.NONE.code(), synced.errorCode());
        ConsumerPartitionAssignor.Assignment assignment = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(synced.assignment()));
        assertEquals(1, assignment.partitions().size(), "the leader gave the raw member one of the three partitions");
        long expiredBefore = broker.coordinator().membersExpired();

        produce(30); // a third of them land on the raw member's partition, which it never reads
        // it sends no heartbeat: after its 2 s session the DelayedHeartbeat expires it, a and b take over
        soon().atMost(Duration.ofSeconds(30)).until(() -> broker.coordinator().membersExpired() == expiredBefore + 1);
        balanced(List.of(a, b));
        everyRecordReadOnce();
        assertTrue(broker.coordinator().admin().describeGroup("g").members().stream().noneMatch(m -> m.memberId().equals(crashing.memberId())));
    }

    @Test
    void aMemberThatNeverSendsSyncGroupIsRemovedAfterTheRebalanceTimeout() throws Exception {
        GroupConsumer a = consumer("a", Map.of(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 3_000));
        balanced(List.of(a));
        WireClient connection = brokers.connect();
        RawMember silent = new RawMember(connection, "g", 60_000, 1_000); // a long session: only the DelayedSync can remove it
        assertEquals(Errors.NONE.code(), silent.join(TOPIC).errorCode());
        long expiredBefore = broker.coordinator().membersExpired();
        // no SyncGroup: once the group's rebalance timeout (a's 3 s) passes, the DelayedSync removes it and a rebalances alone
        soon().atMost(Duration.ofSeconds(30)).until(() -> broker.coordinator().admin().describeGroup("g").members().size() == 1
                && broker.coordinator().admin().describeGroup("g").state() == GroupState.STABLE);
        assertEquals(expiredBefore, broker.coordinator().membersExpired(), "not a session expiry");
        balanced(List.of(a));
        produce(9);
        everyRecordReadOnce();
    }

    @Test
    void committedOffsetsMeanARestartedGroupReadsOnlyWhatIsNew() throws Exception {
        GroupConsumer a = consumer("a", Map.of());
        balanced(List.of(a));
        produce(30);
        everyRecordReadOnce();
        a.close();
        consumers.remove(a);
        soon().until(() -> broker.coordinator().admin().describeGroup("g").state() == GroupState.EMPTY);

        produce(15);
        GroupConsumer b = consumer("b", Map.of());
        balanced(List.of(b));
        everyRecordReadOnce(); // the first 30 would be read twice without the committed offsets
        assertEquals(15, reads.stream().filter(r -> r.member().equals("b")).count());
    }

    @Test
    void aStaticMemberRestartingWithinItsSessionGetsItsPartitionsBackWithoutARebalance() throws Exception {
        Map<String, Object> s1 = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "s1", ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
        Map<String, Object> s2 = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "s2", ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
        GroupConsumer a = consumer("a", s1);
        GroupConsumer b = consumer("b", s2);
        balanced(List.of(a, b));
        Set<TopicPartition> before = b.assignment();
        int generation = broker.coordinator().admin().describeGroup("g").generationId();

        b.close(); // a static member does not leave on close
        consumers.remove(b);
        GroupConsumer restarted = consumer("b2", s2);
        soon().until(() -> restarted.assignment().equals(before));
        assertEquals(generation, broker.coordinator().admin().describeGroup("g").generationId(), "no rebalance");
        produce(30);
        everyRecordReadOnce();
    }
}
