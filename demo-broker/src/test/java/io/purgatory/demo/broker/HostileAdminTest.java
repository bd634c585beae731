package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Admin requests no sane client sends: each gets Kafka's error, creates nothing it should not,
 * holds no memory past the broker's caps, and leaves the connection serving.
 */
@Tag("integration")
class HostileAdminTest {
    @RegisterExtension
    final BrokerExtension fixture = new BrokerExtension();
    private DemoBroker broker;
    private WireClient client;

    private void start(BrokerConfig.Builder config) throws Exception {
        broker = fixture.start(config);
        client = fixture.connect();
    }

    private static CreatableTopic topic(String name, int partitions, int replicationFactor) {
        return new CreatableTopic().setName(name).setNumPartitions(partitions).setReplicationFactor((short) replicationFactor);
    }

    private List<CreatableTopicResult> create(List<CreatableTopic> topics) {
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(30_000);
        topics.forEach(data.topics()::add);
        Answer answer = DemoBrokerTest.answer(sendUnchecked(new CreateTopicsRequest.Builder(data).build()));
        return new ArrayList<>(((CreateTopicsResponse) answer.response()).data().topics());
    }

    private CompletableFuture<Answer> sendUnchecked(org.apache.kafka.common.requests.AbstractRequest request) {
        try {
            return client.send(request);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Errors error(CreatableTopicResult result) {
        return Errors.forCode(result.errorCode());
    }

    @Test
    void aHundredThousandPartitionsInOneTopicAreAPolicyViolation() throws Exception {
        start(BrokerConfig.builder());
        CreatableTopicResult result = create(List.of(topic("huge", 100_000, 3))).get(0);
        assertEquals(Errors.POLICY_VIOLATION, error(result));
        assertEquals("Excessively large number of partitions per request.", result.errorMessage());
        assertEquals(3, broker.replicaManager().topics().partitionCount(), "nothing created");
    }

    @Test
    void tenThousandTopicsInOneRequestAreRefusedWhole() throws Exception {
        start(BrokerConfig.builder());
        List<CreatableTopic> topics = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            topics.add(topic("t" + i, 1, 1));
        }
        List<CreatableTopicResult> results = create(topics);
        assertEquals(10_000, results.size());
        assertTrue(results.stream().allMatch(result -> error(result) == Errors.POLICY_VIOLATION), results.get(0)::toString);
        assertEquals(1, broker.replicaManager().topics().all().size(), "nothing created");
    }

    @Test
    void aCreateTopicsRepeatingOneNamePastTheEntryLimitClosesItsConnectionBeforeParsing() throws Exception {
        start(BrokerConfig.builder());
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(30_000);
        for (int i = 0; i <= 10_000; i++) {
            data.topics().add(topic(String.format("t%05d", i), 1, 1));
        }
        WireClient hostile = fixture.connect();
        // built with distinct names (the client's own collection would probe quadratically too), sent with one name
        hostile.send(new CreateTopicsRequest.Builder(data).build((short) 7), HostileAdminTest::sameNames);
        Waits.soon().until(() -> hostile.closedByBroker().isDone());
        assertEquals(Errors.NONE, error(create(List.of(topic("after", 1, 1))).get(0)), "other connections are served");
        assertEquals(List.of("after", "demo"), broker.replicaManager().topics().all().stream().map(t -> t.name()).toList());
    }

    /** Rewrites every "tNNNNN" in a request to "t00000". */
    private static void sameNames(java.nio.ByteBuffer buffer) {
        for (int i = buffer.position(); i + 5 < buffer.limit(); i++) {
            boolean name = buffer.get(i) == 't';
            for (int d = 1; name && d <= 5; d++) {
                name = Character.isDigit(buffer.get(i + d));
            }
            if (name) {
                for (int d = 1; d <= 5; d++) {
                    buffer.put(i + d, (byte) '0');
                }
            }
        }
    }

    @Test
    void theBrokersPartitionLimitHoldsAcrossRequests() throws Exception {
        start(BrokerConfig.builder().maxPartitions(20));
        assertEquals(Errors.NONE, error(create(List.of(topic("a", 10, 3))).get(0)));
        CreatableTopicResult over = create(List.of(topic("b", 10, 3))).get(0);
        assertEquals(Errors.POLICY_VIOLATION, error(over), over::toString);
        CreatePartitionsRequestData grow = new CreatePartitionsRequestData().setTimeoutMs(30_000);
        grow.topics().add(new CreatePartitionsTopic().setName("a").setCount(20));
        CreatePartitionsResponse grown = (CreatePartitionsResponse) DemoBrokerTest.answer(
                client.send(new CreatePartitionsRequest.Builder(grow).build())).response();
        assertEquals(Errors.POLICY_VIOLATION.code(), grown.data().results().get(0).errorCode());
        assertEquals(13, broker.replicaManager().topics().partitionCount());
    }

    @Test
    void badNamesCountsFactorsAndConfigsGetKafkasErrors() throws Exception {
        start(BrokerConfig.builder());
        List<CreatableTopic> topics = List.of(
                topic("", 1, 1), topic("..", 1, 1), topic("a/b", 1, 1), topic("x".repeat(250), 1, 1),
                topic("zero", 0, 1), topic("negative", -5, 1), topic("nofactor", 1, 0), topic("negfactor", 1, -3),
                topic("wide", 1, 4), topic("dup", 1, 1), topic("dup", 2, 1), topic("demo", 1, 1), topic("demo.x", 1, 1),
                topic("unknown", 1, 1).setConfigs(configs("cleanup.policy", "compact")),
                topic("nullvalue", 1, 1).setConfigs(configs("retention.bytes", null)),
                topic("range", 1, 1).setConfigs(configs("min.insync.replicas", "0")),
                topic("notanumber", 1, 1).setConfigs(configs("max.message.bytes", "lots")));
        List<Errors> errors = create(topics).stream().map(HostileAdminTest::error).toList();
        assertEquals(List.of(Errors.INVALID_TOPIC_EXCEPTION, Errors.INVALID_TOPIC_EXCEPTION, Errors.INVALID_TOPIC_EXCEPTION,
                Errors.INVALID_TOPIC_EXCEPTION, Errors.INVALID_PARTITIONS, Errors.INVALID_PARTITIONS, Errors.INVALID_REPLICATION_FACTOR,
                Errors.INVALID_REPLICATION_FACTOR, Errors.INVALID_REPLICATION_FACTOR, Errors.INVALID_REQUEST, Errors.TOPIC_ALREADY_EXISTS,
                Errors.NONE, Errors.INVALID_CONFIG, Errors.INVALID_CONFIG, Errors.INVALID_CONFIG, Errors.INVALID_CONFIG), errors);
        assertTrue(create(List.of(topic("demo_x", 1, 1))).get(0).errorMessage().contains("collides with existing topic: demo.x"));
        assertEquals(List.of("demo", "demo.x"), broker.replicaManager().topics().all().stream().map(t -> t.name()).toList());
    }

    private static CreateTopicsRequestData.CreatableTopicConfigCollection configs(String name, String value) {
        CreateTopicsRequestData.CreatableTopicConfigCollection configs = new CreateTopicsRequestData.CreatableTopicConfigCollection();
        configs.add(new CreatableTopicConfig().setName(name).setValue(value));
        return configs;
    }

    @Test
    void unknownAndMalformedConfigChangesChangeNothing() throws Exception {
        start(BrokerConfig.builder());
        IncrementalAlterConfigsRequestData data = new IncrementalAlterConfigsRequestData();
        data.resources().add(resource((byte) 2, "demo", "segment.bytes", "1000", (byte) 0));
        data.resources().add(resource((byte) 2, "nope", "min.insync.replicas", "1", (byte) 0));
        data.resources().add(resource((byte) 4, "0", "min.insync.replicas", "-1", (byte) 0));
        data.resources().add(resource((byte) 4, "7", "min.insync.replicas", "1", (byte) 0));
        data.resources().add(resource((byte) 4, "", "log.retention.bytes", "100", (byte) 2));
        data.resources().add(resource((byte) 2, "x y", "min.insync.replicas", "1", (byte) 0));
        IncrementalAlterConfigsResponse response = (IncrementalAlterConfigsResponse) DemoBrokerTest.answer(
                client.send(new IncrementalAlterConfigsRequest.Builder(data).build())).response();
        assertEquals(List.of(Errors.INVALID_CONFIG, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.INVALID_CONFIG,
                        Errors.INVALID_REQUEST, Errors.INVALID_CONFIG, Errors.INVALID_TOPIC_EXCEPTION),
                response.data().responses().stream().map(r -> Errors.forCode(r.errorCode())).toList());
        assertEquals(2, broker.replicaManager().partition("demo", 0).config().minInsyncReplicas());
    }

    private static AlterConfigsResource resource(byte type, String name, String config, String value, byte op) {
        AlterConfigsResource resource = new AlterConfigsResource().setResourceType(type).setResourceName(name);
        resource.configs().add(new AlterableConfig().setName(config).setValue(value).setConfigOperation(op));
        return resource;
    }

    @Test
    void topicsCreatedAndDeletedInATightLoopWhileClientsProduceAndFetchLeaveNothingBehind() throws Exception {
        start(BrokerConfig.builder());
        WireClient producer = fixture.connect();
        WireClient consumer = fixture.connect();
        WireClient admin = fixture.connect();
        AtomicBoolean churning = new AtomicBoolean(true);
        List<CompletableFuture<Answer>> requests = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread load = new Thread(() -> {
            try {
                for (int i = 0; churning.get(); i++) {
                    requests.add(producer.send(WireClient.produce("churn", i % 3, (short) -1, 30_000, 1)));
                    var fetch = FetchTest.fetch(30_000, 1, 0, 0, 0);
                    fetch.topics().get(0).setTopic("churn");
                    requests.add(consumer.send(new FetchRequest(fetch, (short) 12)));
                    if (i % 100 == 99) {
                        Waits.soon().until(() -> requests.stream().filter(r -> !r.isDone()).count() < 400);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, "churn-load");
        load.start();
        for (int round = 0; round < 50; round++) {
            CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
            create.topics().add(topic("churn", 3, 3));
            CreateTopicsResponse created = (CreateTopicsResponse) DemoBrokerTest.answer(admin.send(new CreateTopicsRequest.Builder(create).build()))
                    .response();
            assertEquals(Errors.NONE.code(), created.data().topics().iterator().next().errorCode());
            DeleteTopicsResponse deleted = (DeleteTopicsResponse) DemoBrokerTest.answer(admin.send(new DeleteTopicsRequest.Builder(
                    new DeleteTopicsRequestData().setTopicNames(List.of("churn")).setTimeoutMs(30_000)).build())).response();
            assertEquals(Errors.NONE.code(), deleted.data().responses().iterator().next().errorCode());
        }
        churning.set(false);
        load.join();
        Waits.soon().atMost(Duration.ofSeconds(10)).until(() -> requests.stream().allMatch(CompletableFuture::isDone));
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().delayed());
        assertEquals(0, broker.replicaManager().fetchPurgatoryMetrics().delayed());
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired(), "every produce answered before its timeout");
        assertEquals(0, broker.replicaManager().fetchPurgatoryMetrics().expired(), "every fetch answered before its max wait");
        assertEquals(3, broker.replicaManager().topics().partitionCount(), "only demo's partitions are left");
        MetadataResponse metadata = (MetadataResponse) DemoBrokerTest.answer(client.send(new MetadataRequest(new MetadataRequestData()
                .setTopics(null), (short) 12))).response();
        assertEquals(1, metadata.topicMetadata().size(), "the broker still serves: demo only");
        for (WireClient c : List.of(producer, consumer, admin)) {
            assertEquals(List.of(), c.protocolErrors());
        }
    }
}
