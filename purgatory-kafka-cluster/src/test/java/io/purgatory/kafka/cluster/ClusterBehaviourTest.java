package io.purgatory.kafka.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kafka's behaviour on a real three-broker KRaft cluster, with Kafka's own clients: the same tests and the same
 * assertions on stock Kafka 4.4.0 ({@link StockClusterTest}) and with purgatory-kafka first on every broker's
 * classpath ({@link ModuleClusterTest}). The module must not change what Kafka does.
 *
 * <p>The tests share one cluster, in order; each uses a topic of its own with replication factor 3 and
 * min.insync.replicas 2. A fault test leaves the cluster as it found it (the stopped follower resumes, the
 * killed broker restarts), and the clean shutdown of the whole cluster comes last.
 */
@Tag("integration")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
abstract class ClusterBehaviourTest {

    private static final int RECORDS = 10_000;
    private static final Map<String, String> DURABLE = Map.of("min.insync.replicas", "2");
    private static final String KAFKA_PURGATORY_SIZE = "kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=";
    private static final Duration CLIENT_WAIT = Duration.ofMinutes(2);

    /** The 10,000 records of the produce test, which the group tests read back. */
    private Map<TopicPartition, List<Long>> produced;

    abstract KafkaCluster cluster();

    @Test
    @Order(0)
    void ourPurgatoryServesKafkasPurgatoriesExactlyInTheModuleRun() {
        boolean module = cluster().spec().runtime().onModule();
        for (KafkaNode node : cluster().nodes()) {
            try (NodeJmx jmx = cluster().jmx(node)) {
                assertFalse(jmx.names(KAFKA_PURGATORY_SIZE + "Produce").isEmpty(),
                        "Kafka's own purgatory gauge on node " + node.id());
                assertEquals(module, !jmx.names(KafkaCluster.OUR_PURGATORIES).isEmpty(),
                        "purgatory-kafka's MBeans on node " + node.id() + " of a " + cluster().spec().runtime().label() + " run: "
                                + jmx.names(KafkaCluster.OUR_PURGATORIES));
            }
        }
    }

    @Test
    @Order(1)
    void anIdempotentAcksAllProducerHasEveryRecordAckedOnceAtConsecutiveOffsets() {
        Map<TopicPartition, List<Long>> offsets = produced();
        assertEquals(RECORDS, offsets.values().stream().mapToInt(List::size).sum());
        offsets.forEach((partition, list) -> assertEquals(
                consecutive(0, list.size()), list, "offsets of " + partition + ", in the order they were acked"));
    }

    @ParameterizedTest
    @EnumSource(GroupProtocol.class)
    @Order(2)
    void aConsumerGroupOfThreeReadsExactlyTheProducedRecords(GroupProtocol protocol) throws Exception {
        Map<TopicPartition, List<Long>> expected = produced();
        String group = "readers-" + protocol.name().toLowerCase(java.util.Locale.ROOT);
        Map<TopicPartition, List<Long>> read = new ConcurrentHashMap<>();
        AtomicInteger count = new AtomicInteger();
        try (ConsumerLoops consumers = new ConsumerLoops()) {
            for (int i = 0; i < 3; i++) {
                consumers.start(Clients.consumer(cluster(), Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG, group,
                        ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name())),
                        consumer -> consumer.subscribe(List.of("produced")),
                        (consumer, records) -> {
                            records.forEach(r -> read.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
                                    p -> java.util.Collections.synchronizedList(new ArrayList<>())).add(r.offset()));
                            count.addAndGet(records.count());
                            consumer.commitSync();
                        });
            }
            await("the group reads " + RECORDS + " records").atMost(CLIENT_WAIT).until(() -> count.get() >= RECORDS || consumers.failed());
            consumers.assertNoFailure();
            await("the group has 3 members, each with a partition").atMost(CLIENT_WAIT).until(() -> {
                ConsumerGroupDescription description = cluster().admin().describeConsumerGroups(List.of(group))
                        .describedGroups().get(group).get();
                return description.members().size() == 3
                        && description.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
            });
            ConsumerGroupDescription description = cluster().admin().describeConsumerGroups(List.of(group))
                    .describedGroups().get(group).get();
            assertEquals(protocol == GroupProtocol.CLASSIC ? GroupType.CLASSIC : GroupType.CONSUMER, description.type());
        }
        assertEquals(RECORDS, count.get(), "records read, duplicates included");
        Map<TopicPartition, List<Long>> sorted = new HashMap<>();
        read.forEach((partition, list) -> sorted.put(partition, list.stream().sorted().toList()));
        assertEquals(expected, sorted);
    }

    @ParameterizedTest
    @EnumSource(GroupProtocol.class)
    @Order(3)
    void acksAllRecordsAreAllReadByAGroupThatLosesAMemberToSigkill(GroupProtocol protocol) throws Exception {
        KilledGroupMember.check(cluster(), protocol);
    }

    @Test
    @Order(4)
    void aShareGroupRedeliversRecordsWhoseAcquisitionLockExpired() throws Exception {
        cluster().createTopic("shared", 1, 3, DURABLE);
        try (KafkaProducer<String, String> producer = Clients.producer(cluster(), Map.of())) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("shared", "k" + i, "v" + i));
            }
            producer.flush();
        }
        String group = "sharers";
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        cluster().admin().incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get(1, TimeUnit.MINUTES);

        try (KafkaShareConsumer<String, String> holder = new KafkaShareConsumer<>(Clients.shareConsumerConfig(cluster(), group,
                     Map.of("share.acknowledgement.mode", "explicit")));
             KafkaShareConsumer<String, String> taker = new KafkaShareConsumer<>(Clients.shareConsumerConfig(cluster(), group, Map.of()))) {
            holder.subscribe(List.of("shared"));
            Set<Long> held = new HashSet<>();
            await("the first consumer acquires records").atMost(CLIENT_WAIT).until(() -> {
                holder.poll(Duration.ofMillis(200)).forEach(r -> held.add(r.offset()));
                return !held.isEmpty();
            });
            // the holder neither acknowledges nor polls again: its records' acquisition locks expire on the broker

            taker.subscribe(List.of("shared"));
            Map<Long, Short> redelivered = new TreeMap<>();
            await("the records the first consumer held come again to the second").atMost(CLIENT_WAIT).until(() -> {
                for (ConsumerRecord<String, String> r : taker.poll(Duration.ofMillis(200))) {
                    if (held.contains(r.offset())) {
                        redelivered.put(r.offset(), r.deliveryCount().orElseThrow());
                    }
                }
                return redelivered.keySet().containsAll(held);
            });
            // at least the second delivery: the first consumer's client may have prefetched the released
            // records once more before it stopped polling, and that acquisition expires as well
            assertTrue(redelivered.values().stream().allMatch(count -> count >= 2),
                    "each held record is delivered again, not for the first time: " + redelivered);
        }
    }

    @Test
    @Order(5)
    void fetchLongPollsAreAnsweredAtTheirWaitThenAtOnceWhenDataArrives() throws Exception {
        int consumerCount = 200;
        // long enough that a fetch answered at its wait rather than when the data arrives stands out from a loaded machine's delays
        int maxWaitMs = 3_000;
        cluster().createTopic("long-poll", 1, 3, DURABLE);
        TopicPartition partition = new TopicPartition("long-poll", 0);
        int leader = cluster().partition("long-poll", 0).leader().id();
        AtomicLongArray receivedAt = new AtomicLongArray(consumerCount);
        List<KafkaConsumer<String, String>> all = new ArrayList<>();
        try (ConsumerLoops consumers = new ConsumerLoops();
             NodeJmx jmx = cluster().jmx(cluster().node(leader))) {
            for (int i = 0; i < consumerCount; i++) {
                int index = i;
                KafkaConsumer<String, String> consumer = Clients.consumer(cluster(), Map.of(
                        ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 64 * 1024,
                        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, maxWaitMs,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
                all.add(consumer);
                consumers.start(consumer, c -> c.assign(List.of(partition)), (c, records) -> {
                    if (!records.isEmpty()) {
                        receivedAt.compareAndSet(index, 0, System.nanoTime());
                    }
                });
            }
            await("the consumers' fetches parked in the leader's fetch purgatory").atMost(CLIENT_WAIT)
                    .until(() -> jmx.longAttribute(KAFKA_PURGATORY_SIZE + "Fetch", "Value") >= consumerCount / 2);
            await("every consumer had three empty fetches answered").atMost(CLIENT_WAIT)
                    .until(() -> all.stream().allMatch(c -> fetchMetric(c, "fetch-total") >= 3) || consumers.failed());
            consumers.assertNoFailure();
            for (KafkaConsumer<String, String> consumer : all) {
                double average = fetchMetric(consumer, "fetch-latency-avg");
                assertTrue(average >= maxWaitMs - 10 && average < maxWaitMs + 2_000,
                        "an empty fetch is answered at its " + maxWaitMs + " ms wait, not before and not much later: average " + average);
            }

            String value = "x".repeat(100 * 1024);
            long acked;
            try (KafkaProducer<String, String> producer = Clients.producer(cluster(), Map.of())) {
                producer.send(new ProducerRecord<>("long-poll", "big", value)).get(1, TimeUnit.MINUTES);
                acked = System.nanoTime();
            }
            await("every consumer receives the record").atMost(CLIENT_WAIT)
                    .until(() -> IntStream.range(0, consumerCount).allMatch(i -> receivedAt.get(i) != 0) || consumers.failed());
            consumers.assertNoFailure();
            long[] delaysMs = IntStream.range(0, consumerCount)
                    .mapToLong(i -> Math.max(0, TimeUnit.NANOSECONDS.toMillis(receivedAt.get(i) - acked))).sorted().toArray();
            System.out.printf("long polls, %s: delay from the producer's ack to each consumer's receipt (ms): p50 %d, p90 %d, max %d%n",
                    cluster().spec().runtime().label(), delaysMs[consumerCount / 2], delaysMs[consumerCount * 9 / 10],
                    delaysMs[consumerCount - 1]);
            // answered at their wait, the delays would spread evenly over the wait (a median near 1,500 ms)
            assertTrue(delaysMs[consumerCount / 2] < maxWaitMs / 4,
                    "the parked fetches are answered when the data arrives, not at their wait: median delay " + delaysMs[consumerCount / 2] + " ms");
        }
    }

    @Test
    @Order(6)
    void acksAllProducesWaitForAStoppedFollowerUntilItLeavesTheIsr() throws Exception {
        cluster().createTopic("stopped-follower", 1, 3, DURABLE);
        TopicPartitionInfo info = cluster().partition("stopped-follower", 0);
        int leader = info.leader().id();
        int activeController = cluster().admin().describeMetadataQuorum().quorumInfo().get(1, TimeUnit.MINUTES).leaderId();
        KafkaNode follower = info.replicas().stream().map(n -> cluster().node(n.id()))
                .filter(n -> n.id() != leader && n.id() != activeController).findFirst().orElseThrow();
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(cluster(), Map.of(
                     ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000));
             NodeJmx jmx = cluster().jmx(cluster().node(leader))) {
            // the producer has its metadata and producer id before the stop: a stopped node still accepts
            // connections, and a metadata or InitProducerId request sent to it would wait for the request timeout
            sends.add(producer.send(new ProducerRecord<>("stopped-follower", "k", "v0")));
            sends.get(0).get(1, TimeUnit.MINUTES);
            follower.signal("STOP");
            for (int i = 1; i <= 100; i++) {
                sends.add(producer.send(new ProducerRecord<>("stopped-follower", "k", "v" + i)));
            }
            // no flush: it would wait for the acks; the producer's sender sends the batch after linger.ms
            await("the produce parked in the leader's produce purgatory").atMost(CLIENT_WAIT)
                    .until(() -> jmx.longAttribute(KAFKA_PURGATORY_SIZE + "Produce", "Value") > 0);
            assertFalse(sends.stream().allMatch(Future::isDone), "acks=all waits for the stopped follower");
            await("the produce completes").atMost(CLIENT_WAIT).until(() -> sends.stream().allMatch(Future::isDone));
            // the follower stays stopped, so it cannot be back in the ISR: the produce completed once Kafka dropped it
            await("the stopped follower " + follower.id() + " out of the ISR").atMost(CLIENT_WAIT).ignoreExceptions()
                    .until(() -> cluster().partition("stopped-follower", 0).isr().stream().noneMatch(n -> n.id() == follower.id()));
        } finally {
            follower.signal("CONT");
        }
        List<Long> offsets = new ArrayList<>();
        for (Future<RecordMetadata> send : sends) {
            offsets.add(send.get().offset());
        }
        assertEquals(consecutive(0, 101), offsets);
        cluster().awaitFullIsr("stopped-follower");
        assertEquals(IntStream.rangeClosed(0, 100).mapToObj(i -> "v" + i).toList(), readAll("stopped-follower"), "the records, once each");
    }

    @Test
    @Order(7)
    void producersAndConsumersCarryOnWhenABrokerIsKilledAndEveryAckedRecordIsReadable() throws Exception {
        cluster().createTopic("killed-broker", 3, 3, DURABLE);
        KafkaNode victim = cluster().node(cluster().partition("killed-broker", 0).leader().id());
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicReference<Exception> sendFailure = new AtomicReference<>();
        AtomicInteger consumed = new AtomicInteger();
        try (ConsumerLoops consumers = new ConsumerLoops();
             KafkaProducer<String, String> producer = Clients.producer(cluster(), Map.of(
                     ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000))) {
            consumers.start(Clients.consumer(cluster(), Map.of(ConsumerConfig.GROUP_ID_CONFIG, "killed-broker-readers")),
                    c -> c.subscribe(List.of("killed-broker")), (c, records) -> consumed.addAndGet(records.count()));
            Semaphore inFlight = new Semaphore(200);
            Thread load = new Thread(() -> {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    String value = "v" + i;
                    try {
                        inFlight.acquire();
                    } catch (InterruptedException e) {
                        return;
                    }
                    producer.send(new ProducerRecord<>("killed-broker", value, value), (metadata, failure) -> {
                        inFlight.release();
                        if (failure == null) {
                            acked.add(value);
                        } else {
                            sendFailure.compareAndSet(null, failure);
                        }
                    });
                }
            }, "killed-broker-producer");
            load.start();
            try {
                await("2,000 records acked and consumed before the kill").atMost(CLIENT_WAIT)
                        .until(() -> acked.size() >= 2_000 && consumed.get() >= 2_000);
                int ackedAtKill = acked.size();
                int consumedAtKill = consumed.get();
                victim.kill();
                await("2,000 more records acked and consumed after the kill").atMost(CLIENT_WAIT)
                        .until(() -> (acked.size() >= ackedAtKill + 2_000 && consumed.get() >= consumedAtKill + 2_000)
                                || sendFailure.get() != null || consumers.failed());
            } finally {
                load.interrupt();
                load.join();
                producer.flush();
            }
            consumers.assertNoFailure();
            assertEquals(null, sendFailure.get(), "no send failed");
        }
        List<String> log = readAll("killed-broker");
        assertTrue(new HashSet<>(log).containsAll(acked), "every acked record is in the log");
        assertEquals(log.size(), new HashSet<>(log).size(), "no record twice (idempotence)");
        cluster().restart(victim);
        cluster().awaitFullIsr("killed-broker");
    }

    @Test
    @Order(8)
    void theClusterShutsDownCleanlyWithFetchesParked() throws Exception {
        cluster().createTopic("parked-at-shutdown", 3, 3, DURABLE);
        List<TopicPartition> partitions = IntStream.range(0, 3).mapToObj(p -> new TopicPartition("parked-at-shutdown", p)).toList();
        try (ConsumerLoops consumers = new ConsumerLoops()) {
            for (int i = 0; i < 30; i++) {
                consumers.start(Clients.consumer(cluster(), Map.of(
                        ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1024 * 1024,
                        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 60_000,
                        ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 90_000)),
                        c -> c.assign(partitions), (c, records) -> { });
            }
            await("the consumers' fetches parked").atMost(CLIENT_WAIT).until(() -> parked("Fetch") >= 30);
            Map<Integer, Duration> exits = cluster().shutdown(SHUTDOWN_TIMEOUT);
            System.out.printf("clean shutdown, %s: time from SIGTERM to exit per node, one node at a time: %s%n",
                    cluster().spec().runtime().label(), exits);
            exits.forEach((node, took) -> assertNotNull(took, "node " + node + " exited within " + SHUTDOWN_TIMEOUT + " of its SIGTERM"));
            for (KafkaNode node : cluster().nodes()) {
                String log = node.logTail(Integer.MAX_VALUE);
                assertFalse(log.contains(CONTROLLED_SHUTDOWN_TIMED_OUT), "node " + node.id() + ": " + CONTROLLED_SHUTDOWN_TIMED_OUT);
                if (!cluster().spec().stopsWithoutQuorum(node.id())) {
                    assertTrue(log.contains(CONTROLLED_SHUTDOWN_APPROVED),
                            "node " + node.id() + " had its controlled shutdown approved: " + CONTROLLED_SHUTDOWN_APPROVED);
                }
            }
        }
    }

    @Test
    @Order(9)
    void noBrokerLoggedALinkageError() throws IOException {
        for (KafkaNode node : cluster().nodes()) {
            assertEquals(List.of(), LinkageErrors.in(node), "linkage errors in " + node.logFile());
        }
    }

    /**
     * Per node, from its SIGTERM to its exit: far above what a node takes here (a few seconds: leaders moved, the
     * controller's approval on the next heartbeat, logs closed, Kafka's raft client's graceful shutdown, itself
     * bounded at 5 s) and far below Kafka's 5-minute deadline for a controlled shutdown's approval, so that a broker
     * waiting on a controller quorum that is gone fails the test rather than passing slowly.
     */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);
    /** Kafka's BrokerLifecycleManager, when the active controller approves the broker's controlled shutdown. */
    private static final String CONTROLLED_SHUTDOWN_APPROVED = "The controller has asked us to exit controlled shutdown";
    /** Kafka's BrokerServer, when the approval did not come by its deadline. */
    private static final String CONTROLLED_SHUTDOWN_TIMED_OUT = "Timed out waiting for the controller to approve controlled shutdown";

    private long parked(String purgatory) {
        long total = 0;
        for (KafkaNode node : cluster().nodes()) {
            try (NodeJmx jmx = cluster().jmx(node)) {
                total += jmx.longAttribute(KAFKA_PURGATORY_SIZE + purgatory, "Value");
            }
        }
        return total;
    }

    private synchronized Map<TopicPartition, List<Long>> produced() {
        if (produced != null) {
            return produced;
        }
        cluster().createTopic("produced", 3, 3, DURABLE);
        AtomicReferenceArray<RecordMetadata> acks = new AtomicReferenceArray<>(RECORDS);
        AtomicInteger[] ackCounts = IntStream.range(0, RECORDS).mapToObj(i -> new AtomicInteger()).toArray(AtomicInteger[]::new);
        Map<TopicPartition, List<Long>> offsets = new ConcurrentHashMap<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<String, String> producer = Clients.producer(cluster(), Map.of())) {
            for (int i = 0; i < RECORDS; i++) {
                int index = i;
                producer.send(new ProducerRecord<>("produced", "k" + i, "v" + i), (metadata, error) -> {
                    ackCounts[index].incrementAndGet();
                    if (error != null) {
                        failure.compareAndSet(null, error);
                        return;
                    }
                    acks.set(index, metadata);
                    offsets.computeIfAbsent(new TopicPartition(metadata.topic(), metadata.partition()), p -> new ArrayList<>())
                            .add(metadata.offset());
                });
            }
            producer.flush();
        }
        assertEquals(null, failure.get(), "no send failed");
        for (int i = 0; i < RECORDS; i++) {
            assertEquals(1, ackCounts[i].get(), "acks of record " + i);
            assertNotNull(acks.get(i));
        }
        produced = Map.copyOf(offsets);
        return produced;
    }

    /** Every value of a topic, in offset order per partition, partitions in order. */
    private List<String> readAll(String topic) {
        List<TopicPartition> partitions = cluster().describe(topic).partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster(), Map.of())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Map<TopicPartition, List<String>> byPartition = new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
            await("read " + topic + " to its end").atMost(CLIENT_WAIT).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r ->
                        byPartition.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), p -> new ArrayList<>()).add(r.value()));
                return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
            });
            byPartition.values().forEach(values::addAll);
        }
        return values;
    }

    private static double fetchMetric(KafkaConsumer<?, ?> consumer, String name) {
        for (Map.Entry<MetricName, ? extends Metric> metric : consumer.metrics().entrySet()) {
            if (metric.getKey().group().equals("consumer-fetch-manager-metrics") && metric.getKey().name().equals(name)
                    && metric.getKey().tags().size() == 1) {
                return ((Number) metric.getValue().metricValue()).doubleValue();
            }
        }
        throw new IllegalStateException("no consumer metric " + name);
    }

    /** Consecutive offsets {@code from} to {@code toExclusive}. */
    private static List<Long> consecutive(long from, long toExclusive) {
        return LongStream.range(from, toExclusive).boxed().toList();
    }
}
