package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every admin API in every version kafka-clients 4.4.0 has, over the wire: each version's request
 * is answered and does what it says; plus the kafka-clients {@code Admin} for the cluster and auto
 * topic creation behind its option.
 */
@Tag("integration")
class AdminApiVersionsTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();

    private static AbstractResponse answer(WireClient client, AbstractRequest request) throws Exception {
        return DemoBrokerTest.answer(client.send(request)).response();
    }

    private static List<Short> versions(ApiKeys api) {
        return java.util.stream.IntStream.rangeClosed(api.oldestVersion(), api.latestVersion()).mapToObj(v -> (short) v).toList();
    }

    @Test
    void everyVersionOfCreatePartitionsDeleteTopicsAndCreateTopics() throws Exception {
        DemoBroker broker = brokers.get();
        WireClient client = brokers.connect();
        List<String> names = new java.util.ArrayList<>();
        for (short version : versions(ApiKeys.CREATE_TOPICS)) {
            String name = "created-v" + version;
            names.add(name);
            CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
            create.topics().add(new CreatableTopic().setName(name).setNumPartitions(2).setReplicationFactor((short) 2));
            CreatableTopicResult created = ((CreateTopicsResponse) answer(client, new CreateTopicsRequest.Builder(create).build(version)))
                    .data().topics().find(name);
            assertEquals(Errors.NONE.code(), created.errorCode(), "CreateTopics v" + version);
            assertEquals(2, broker.replicaManager().topics().topic(name).partitions().size());
            assertEquals(2, broker.replicaManager().topics().topic(name).replicationFactor());
            if (version >= 7) {
                assertEquals(broker.replicaManager().topics().topic(name).id(), created.topicId());
            }
        }
        java.util.Iterator<String> toGrow = names.iterator();
        for (short version : versions(ApiKeys.CREATE_PARTITIONS)) {
            String name = toGrow.next();
            CreatePartitionsRequestData grow = new CreatePartitionsRequestData().setTimeoutMs(30_000);
            grow.topics().add(new CreatePartitionsTopic().setName(name).setCount(5).setAssignments(null));
            CreatePartitionsResponse grown = (CreatePartitionsResponse) answer(client, new CreatePartitionsRequest.Builder(grow).build(version));
            assertEquals(Errors.NONE.code(), grown.data().results().get(0).errorCode(), "CreatePartitions v" + version);
            assertEquals(5, broker.replicaManager().topics().topic(name).partitions().size());
        }
        java.util.Iterator<String> toDelete = names.iterator();
        for (short version : versions(ApiKeys.DELETE_TOPICS)) {
            String name = toDelete.next();
            DeleteTopicsRequestData delete = new DeleteTopicsRequestData().setTimeoutMs(30_000);
            if (version >= 6) {
                Uuid id = broker.replicaManager().topics().topic(name).id();
                delete.setTopics(List.of(new DeleteTopicState().setTopicId(id)));
            } else {
                delete.setTopicNames(List.of(name));
            }
            DeleteTopicsResponse deleted = (DeleteTopicsResponse) answer(client, new DeleteTopicsRequest.Builder(delete).build(version));
            assertEquals(Errors.NONE.code(), deleted.data().responses().iterator().next().errorCode(), "DeleteTopics v" + version);
            assertEquals(null, broker.replicaManager().topics().topic(name));
        }
    }

    @Test
    void everyVersionOfDescribeConfigsIncrementalAlterConfigsDeleteRecordsAndDescribeCluster() throws Exception {
        DemoBroker broker = brokers.get();
        WireClient client = brokers.connect();
        for (short version : versions(ApiKeys.INCREMENTAL_ALTER_CONFIGS)) {
            IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
            AlterConfigsResource resource = new AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("demo");
            resource.configs().add(new AlterableConfig().setName("retention.bytes").setValue(String.valueOf(1000 + version)).setConfigOperation((byte) 0));
            alter.resources().add(resource);
            IncrementalAlterConfigsResponse altered = (IncrementalAlterConfigsResponse) answer(client,
                    new IncrementalAlterConfigsRequest.Builder(alter).build(version));
            assertEquals(Errors.NONE.code(), altered.data().responses().get(0).errorCode(), "IncrementalAlterConfigs v" + version);
            assertEquals(1000 + version, broker.replicaManager().partition("demo", 0).config().retentionBytes());
        }
        for (short version : versions(ApiKeys.DESCRIBE_CONFIGS)) {
            DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(version >= 1)
                    .setIncludeDocumentation(version >= 3);
            describe.resources().add(new DescribeConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("demo")
                    .setConfigurationKeys(List.of("retention.bytes")));
            DescribeConfigsResult result = ((DescribeConfigsResponse) answer(client, new DescribeConfigsRequest.Builder(describe).build(version)))
                    .data().results().get(0);
            assertEquals(Errors.NONE.code(), result.errorCode(), "DescribeConfigs v" + version);
            assertEquals(1, result.configs().size());
            assertEquals(String.valueOf(1000 + ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion()), result.configs().get(0).value());
        }
        WireClient producer = brokers.connect();
        DemoBrokerTest.answer(producer.send(WireClient.produce("demo", 0, (short) -1, 30_000, 10)));
        for (short version : versions(ApiKeys.DELETE_RECORDS)) {
            DeleteRecordsRequestData delete = new DeleteRecordsRequestData().setTimeoutMs(30_000).setTopics(List.of(new DeleteRecordsTopic()
                    .setName("demo").setPartitions(List.of(new DeleteRecordsPartition().setPartitionIndex(0).setOffset(version + 1)))));
            DeleteRecordsResponse deleted = (DeleteRecordsResponse) answer(client, new DeleteRecordsRequest.Builder(delete).build(version));
            var partition = deleted.data().topics().find("demo").partitions().find(0);
            assertEquals(Errors.NONE.code(), partition.errorCode(), "DeleteRecords v" + version);
            assertEquals(version + 1, partition.lowWatermark());
        }
        for (short version : versions(ApiKeys.DESCRIBE_CLUSTER)) {
            DescribeClusterResponse cluster = (DescribeClusterResponse) answer(client,
                    new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build(version));
            assertEquals(Errors.NONE.code(), cluster.data().errorCode(), "DescribeCluster v" + version);
            assertEquals(broker.port(), cluster.data().brokers().find(0).port());
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port()))) {
            DescribeClusterResult cluster = admin.describeCluster();
            assertEquals("purgatory-demo-cluster", cluster.clusterId().get());
            assertEquals(0, cluster.controller().get().id());
            assertEquals(1, cluster.nodes().get().size());
        }
    }

    @Test
    void metadataCreatesTopicsOnlyWhenTheBrokerAllowsIt() throws Exception {
        brokers.start(BrokerConfig.builder().autoCreateTopics(false));
        WireClient client = brokers.connect();
        MetadataRequestData wanted = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestTopic().setName("fresh")));
        MetadataResponse refused = (MetadataResponse) answer(client, new MetadataRequest(wanted, (short) 12));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, refused.topicMetadata().iterator().next().error(), "--no-auto-create-topics");
    }

    @Test
    void byDefaultAProducerCreatesItsTopicAsWithKafka() throws Exception {
        DemoBroker broker = brokers.get(); // auto.create.topics.enable defaults to true, as Kafka's
        try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<String, String>(Map.of(
                "bootstrap.servers", "localhost:" + broker.port(),
                "key.serializer", org.apache.kafka.common.serialization.StringSerializer.class,
                "value.serializer", org.apache.kafka.common.serialization.StringSerializer.class))) {
            var sent = producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("fresh", "k", "v")).get();
            assertEquals(0, sent.offset());
        }
        assertEquals(1, broker.replicaManager().topics().topic("fresh").partitions().size(), "--num-partitions, 1 by default");
        WireClient client = brokers.connect();
        MetadataRequestData badName = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestTopic().setName("bad name")));
        MetadataResponse response = (MetadataResponse) answer(client, new MetadataRequest(badName, (short) 12));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, response.topicMetadata().iterator().next().error());
        assertTrue(broker.replicaManager().topics().topic("bad name") == null);
    }

    @Test
    void maxMessageBytesAndRetentionBytesTakeEffectWhenAltered() throws Exception {
        DemoBroker broker = brokers.get();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port()))) {
            WireClient client = brokers.connect();
            for (int i = 0; i < 10; i++) {
                DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, (short) 1, 30_000, 10)));
            }
            long size = broker.replicaManager().partition("demo", 0).logSizeBytes();
            alter(admin, "retention.bytes", String.valueOf(size / 2));
            assertTrue(broker.replicaManager().partition("demo", 0).logSizeBytes() <= size / 2 + size / 10, "trimmed at once");
            assertTrue(broker.replicaManager().partition("demo", 0).logStartOffset() > 0);

            alter(admin, "max.message.bytes", "100");
            var refused = DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(client.send(WireClient.produce("demo", 1, (short) 1, 30_000, 10))));
            assertEquals(Errors.MESSAGE_TOO_LARGE.code(), refused.errorCode());
            assertEquals(0, broker.replicaManager().partition("demo", 1).leaderEndOffset(), "nothing appended");
        }
    }

    private static void alter(Admin admin, String name, String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "demo"),
                List.of(new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry(name, value),
                        org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get(20, java.util.concurrent.TimeUnit.SECONDS);
    }
}
