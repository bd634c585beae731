package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fetch and ListOffsets over the wire: long polls in the fetch purgatory, retention, errors, hostile requests. */
@Tag("integration")
public class FetchTest {
    private static final short BY_NAME = 12;
    private static final short BY_ID = 18;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private WireClient start(BrokerConfig.Builder config) throws Exception {
        broker = brokers.start(config);
        return brokers.connect();
    }

    private WireClient connect() throws Exception {
        return brokers.connect();
    }

    /** A fetch of one offset per partition (partition i at offsets[i]) of topic demo, by name. */
    public static FetchRequestData fetch(int maxWaitMs, int minBytes, long... offsets) {
        FetchTopic topic = new FetchTopic().setTopic("demo");
        for (int partition = 0; partition < offsets.length; partition++) {
            topic.partitions().add(new FetchPartition().setPartition(partition).setFetchOffset(offsets[partition])
                    .setPartitionMaxBytes(1024 * 1024).setLogStartOffset(-1).setCurrentLeaderEpoch(-1).setLastFetchedEpoch(-1));
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(minBytes).setMaxBytes(50 * 1024 * 1024)
                .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1).setTopics(new ArrayList<>(List.of(topic)));
    }

    private static CompletableFuture<Answer> send(WireClient client, FetchRequestData data, short version) throws Exception {
        return client.send(new FetchRequest(data, version));
    }

    private static FetchResponse fetchResponse(CompletableFuture<Answer> future) {
        return (FetchResponse) DemoBrokerTest.answer(future).response();
    }

    private static PartitionData onlyPartition(FetchResponse response) {
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        return response.data().responses().get(0).partitions().get(0);
    }

    private static List<String> values(PartitionData partition) {
        List<String> values = new ArrayList<>();
        for (Record record : ((MemoryRecords) partition.records()).records()) {
            values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
        }
        return values;
    }

    private static void produce(WireClient client, int partition, int records) throws Exception {
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(
                DemoBrokerTest.answer(client.send(WireClient.produce("demo", partition, (short) -1, 30_000, records)))).errorCode());
    }

    @Test
    void aLongPollParksAndCompletesWhenCommittedDataArrives() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        CompletableFuture<Answer> poll = send(client, fetch(30_000, 1, 0), BY_NAME);
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
        assertFalse(poll.isDone(), "no data: the fetch waits");

        produce(connect(), 0, 3);

        Answer answer = DemoBrokerTest.answer(poll);
        PartitionData partition = onlyPartition((FetchResponse) answer.response());
        assertEquals(List.of("record-0", "record-1", "record-2"), values(partition));
        assertEquals(3, partition.highWatermark());
        assertEquals(3, partition.lastStableOffset());
        assertEquals(0, partition.logStartOffset());
        assertTrue(answer.elapsedNanos() < TimeUnit.SECONDS.toNanos(10), "answered by the data, not at max.wait.ms");
        assertEquals(0, broker.replicaManager().fetchPurgatoryMetrics().expired());
    }

    @Test
    void aParkedFetchCompletesWhenTheStalledFollowerLeavesTheIsrAndTheHighWatermarkJumps() throws Exception {
        WireClient client = start(BrokerConfig.builder().stallReplica(2).replicaLagTimeMaxMs(500));
        CompletableFuture<Answer> poll = send(client, fetch(30_000, 1, 0, 0), BY_NAME);
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(
                DemoBrokerTest.answer(connect().send(WireClient.produce("demo", 1, (short) 1, 30_000, 2)))).errorCode());

        Answer answer = DemoBrokerTest.answer(poll);

        assertEquals(java.util.List.of(0, 1), broker.replicaManager().partition("demo", 1).isr(), "replica 2 left the ISR");
        List<PartitionData> partitions = ((FetchResponse) answer.response()).data().responses().get(0).partitions();
        assertEquals(List.of(), values(partitions.get(0)));
        assertEquals(List.of("record-0", "record-1"), values(partitions.get(1)));
        assertTrue(answer.elapsedNanos() < TimeUnit.SECONDS.toNanos(10), "completed by the ISR change, not at max.wait.ms");
    }

    @Test
    void aLongPollWithNoDataIsAnsweredEmptyAtMaxWaitAndNotEarlier() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        long sent = System.nanoTime();
        CompletableFuture<Answer> poll = send(client, fetch(700, 1, 0), BY_NAME);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(poll::isDone);
        Answer answer = poll.join();
        assertTrue(answer.elapsedNanos() >= TimeUnit.MILLISECONDS.toNanos(700), "answered after " + answer.elapsedNanos() / 1_000_000 + " ms");
        assertTrue(System.nanoTime() - sent >= TimeUnit.MILLISECONDS.toNanos(700));
        PartitionData partition = onlyPartition((FetchResponse) answer.response());
        assertEquals(0, ((MemoryRecords) partition.records()).sizeInBytes());
        assertEquals(0, partition.highWatermark());
        assertEquals(1, broker.replicaManager().fetchPurgatoryMetrics().expired());
    }

    @Test
    void aFetchWaitsForItsMinBytesAcrossPartitionsThenReadsThemAll() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        WireClient producer = connect();
        produce(producer, 0, 1);
        int oneBatch = (int) broker.replicaManager().partition("demo", 0).logSizeBytes();
        CompletableFuture<Answer> poll = send(client, fetch(30_000, 3 * oneBatch, 0, 0, 0), BY_NAME);
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
        produce(producer, 1, 1);
        assertFalse(poll.isDone(), "two batches are not enough");

        produce(producer, 2, 1);

        FetchResponse response = fetchResponse(poll);
        List<PartitionData> partitions = response.data().responses().get(0).partitions();
        assertEquals(3, partitions.size());
        for (PartitionData partition : partitions) {
            assertEquals(List.of("record-0"), values(partition), "partition " + partition.partitionIndex());
        }
    }

    @Test
    void aOnePartitionFetchForMoreThanOneBatchWaitsForTheSecond() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        WireClient producer = connect();
        produce(producer, 0, 1);
        int oneBatch = (int) broker.replicaManager().partition("demo", 0).logSizeBytes();
        CompletableFuture<Answer> poll = send(client, fetch(30_000, oneBatch + 1, 0), BY_NAME);
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);

        produce(producer, 0, 1);

        assertEquals(List.of("record-0", "record-0"), values(onlyPartition(fetchResponse(poll))));
    }

    @Test
    void topicIdsFromMetadataAddressFetchesFromVersion13() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        produce(client, 0, 2);
        MetadataResponse metadata = (MetadataResponse) DemoBrokerTest.answer(client.send(new MetadataRequest(
                new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("demo"))), (short) 12))).response();
        Uuid id = metadata.data().topics().find("demo").topicId();
        FetchRequestData byId = fetch(0, 1, 0);
        byId.topics().get(0).setTopic("").setTopicId(id);
        FetchResponse response = fetchResponse(send(client, byId, BY_ID));
        assertEquals(id, response.data().responses().get(0).topicId());
        assertEquals(List.of("record-0", "record-1"), values(onlyPartition(response)));

        FetchRequestData unknownId = fetch(0, 1, 0);
        unknownId.topics().get(0).setTopic("").setTopicId(Uuid.randomUuid());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), onlyPartition(fetchResponse(send(client, unknownId, BY_ID))).errorCode());
    }

    /** Every Fetch version kafka-clients has, and every ListOffsets version, answered and read back. */
    @Test
    void everyFetchAndListOffsetsVersionIsServed() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        produce(client, 0, 2);
        Uuid id = ((MetadataResponse) DemoBrokerTest.answer(client.send(new MetadataRequest(new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("demo"))), (short) 12))).response())
                .data().topics().find("demo").topicId();
        for (short version = ApiKeys.FETCH.oldestVersion(); version <= ApiKeys.FETCH.latestVersion(); version++) {
            FetchRequestData data = fetch(0, 1, 1);
            if (version >= 13) {
                data.topics().get(0).setTopic("").setTopicId(id);
            }
            PartitionData partition = onlyPartition(fetchResponse(send(client, data, version)));
            assertEquals(Errors.NONE.code(), partition.errorCode(), "Fetch v" + version);
            assertEquals(List.of("record-0", "record-1"), values(partition), "Fetch v" + version + ": the batch holding offset 1");
            assertEquals(2, partition.highWatermark(), "Fetch v" + version);
        }
        for (short version = ApiKeys.LIST_OFFSETS.oldestVersion(); version <= ApiKeys.LIST_OFFSETS.latestVersion(); version++) {
            List<ListOffsetsTopic> topics = List.of(new ListOffsetsTopic().setName("demo").setPartitions(List.of(
                    new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP))));
            ListOffsetsResponse response = (ListOffsetsResponse) DemoBrokerTest.answer(client.send(
                    ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED).setTargetTimes(topics).build(version))).response();
            assertEquals(2, response.topics().get(0).partitions().get(0).offset(), "ListOffsets v" + version);
        }
        assertEquals(List.of(), client.protocolErrors());
    }

    @Test
    void retentionDropsTheOldestBatchesAndOffsetsBelowTheLogStartAreOutOfRange() throws Exception {
        WireClient client = start(BrokerConfig.builder().retentionBytes(4096));
        for (int i = 0; i < 100; i++) {
            produce(client, 0, 5);
        }
        assertEquals(500, broker.replicaManager().partition("demo", 0).leaderEndOffset());
        long logStart = broker.replicaManager().partition("demo", 0).logStartOffset();
        assertTrue(logStart > 0 && logStart % 5 == 0, "whole batches dropped: log start " + logStart);
        long logSize = broker.replicaManager().partition("demo", 0).logSizeBytes();
        assertTrue(logSize <= 4096, "memory bounded: " + logSize + " bytes");

        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), onlyPartition(fetchResponse(send(client, fetch(0, 1, logStart - 1), BY_NAME))).errorCode());
        PartitionData fromStart = onlyPartition(fetchResponse(send(client, fetch(0, 1, logStart), BY_NAME)));
        assertEquals(logStart, fromStart.logStartOffset());
        assertEquals(500 - logStart, countRecords(fromStart), "every record the log still holds");
        assertEquals(logStart, listOffset(client, ListOffsetsRequest.EARLIEST_TIMESTAMP).offset());
        assertEquals(500, listOffset(client, ListOffsetsRequest.LATEST_TIMESTAMP).offset());
    }

    private static long countRecords(PartitionData partition) {
        long count = 0;
        for (Record ignored : ((MemoryRecords) partition.records()).records()) {
            count++;
        }
        return count;
    }

    private static ListOffsetsPartitionResponse listOffset(WireClient client, long timestamp) throws Exception {
        List<ListOffsetsTopic> topics = List.of(new ListOffsetsTopic()
                .setName("demo").setPartitions(List.of(new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(timestamp))));
        ListOffsetsResponse response = (ListOffsetsResponse) DemoBrokerTest.answer(client.send(
                ListOffsetsRequest.Builder.forConsumer(true, IsolationLevel.READ_COMMITTED).setTargetTimes(topics).build((short) 10))).response();
        return response.topics().get(0).partitions().get(0);
    }

    @Test
    void listOffsetsFindsEarliestLatestAndByTimestampBelowTheHighWatermark() throws Exception {
        WireClient client = start(BrokerConfig.builder().stallReplica(2));
        assertEquals(0, listOffset(client, ListOffsetsRequest.LATEST_TIMESTAMP).offset());
        ProduceRequestData.PartitionProduceData timestamped = new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_000, null, "a".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(3_000, null, "b".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(2_000, null, "c".getBytes(StandardCharsets.UTF_8))));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("demo").setPartitionData(List.of(timestamped)));
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(client.send(ProduceRequest.builder(
                new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics)).build(BY_NAME)))).errorCode());
        assertEquals(0, listOffset(client, ListOffsetsRequest.LATEST_TIMESTAMP).offset(), "not committed: replica 2 stalls");
        assertEquals(-1, listOffset(client, 0).offset(), "no committed record at or after time 0 yet");
        broker.followers().resume(2);
        Waits.soon().until(() -> broker.replicaManager().partition("demo", 0).highWatermark() == 3);
        assertEquals(0, listOffset(client, ListOffsetsRequest.EARLIEST_TIMESTAMP).offset());
        assertEquals(3, listOffset(client, ListOffsetsRequest.LATEST_TIMESTAMP).offset());
        ListOffsetsPartitionResponse byTime = listOffset(client, 1_500);
        assertEquals(1, byTime.offset(), "the first record stamped at or after 1500");
        assertEquals(3_000, byTime.timestamp());
        assertEquals(0, byTime.leaderEpoch());
        assertEquals(0, listOffset(client, 0).offset());
        assertEquals(1, listOffset(client, ListOffsetsRequest.MAX_TIMESTAMP).offset());
        assertEquals(-1, listOffset(client, Long.MAX_VALUE / 2).offset(), "nothing that late");
        assertEquals(Errors.INVALID_REQUEST.code(), listOffset(client, -42).errorCode());
    }

    @Test
    void closingTheBrokerAnswersParkedFetchesWithWhatIsThere() throws Exception {
        WireClient client = start(BrokerConfig.builder().stallReplica(2));
        List<CompletableFuture<Answer>> parked = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            parked.add(send(client, fetch(600_000, 1, 0), BY_NAME));
            parked.add(send(client, fetch(600_000, 1, 0, 0, 0), BY_NAME));
        }
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == parked.size());

        broker.close();

        for (CompletableFuture<Answer> future : parked) {
            FetchResponse response = fetchResponse(future);
            for (PartitionData partition : response.data().responses().get(0).partitions()) {
                assertEquals(Errors.NONE.code(), partition.errorCode());
                assertEquals(0, ((MemoryRecords) partition.records()).sizeInBytes());
            }
        }
        assertEquals(List.of(), client.protocolErrors());
    }

    @Test
    void badFetchesGetKafkasErrorsOnTheirOwnConnectionOnly() throws Exception {
        WireClient bystander = start(BrokerConfig.builder());
        CompletableFuture<Answer> parked = send(bystander, fetch(30_000, 1, 0), BY_NAME);
        WireClient offender = connect();

        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), onlyPartition(fetchResponse(send(offender, fetch(0, 1, -5), BY_NAME))).errorCode());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), onlyPartition(fetchResponse(send(offender, fetch(30_000, 1, 7), BY_NAME))).errorCode(),
                "past the log end: answered at once");
        FetchRequestData unknownPartition = fetch(0, 1, 0);
        unknownPartition.topics().get(0).partitions().get(0).setPartition(7);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), onlyPartition(fetchResponse(send(offender, unknownPartition, BY_NAME))).errorCode());
        FetchRequestData unknownTopic = fetch(0, 1, 0);
        unknownTopic.topics().get(0).setTopic("nope");
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), onlyPartition(fetchResponse(send(offender, unknownTopic, BY_NAME))).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
                onlyPartition(fetchResponse(send(offender, fetch(0, 1, 0).setIsolationLevel((byte) 7), BY_NAME))).errorCode());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND.code(),
                fetchResponse(send(offender, fetch(0, 1, 0).setSessionId(1234).setSessionEpoch(1), BY_NAME)).data().errorCode());

        FetchRequestData negativeSizes = fetch(0, -1, 0).setMaxBytes(-1);
        negativeSizes.topics().get(0).partitions().get(0).setPartitionMaxBytes(-100);
        assertEquals(Errors.NONE.code(), onlyPartition(fetchResponse(send(offender, negativeSizes, BY_NAME))).errorCode());

        FetchTopic huge = new FetchTopic().setTopic("demo");
        for (int i = 0; i < 200_000; i++) {
            huge.partitions().add(new FetchPartition().setPartition(i % 3).setFetchOffset(0).setPartitionMaxBytes(Integer.MAX_VALUE));
        }
        FetchResponse refused = fetchResponse(send(offender, fetch(600_000, Integer.MAX_VALUE).setTopics(List.of(huge)), BY_NAME));
        assertEquals(Errors.INVALID_REQUEST.code(), refused.data().errorCode());
        assertTrue(refused.data().responses().isEmpty());
        assertEquals(1, broker.replicaManager().fetchPurgatoryMetrics().delayed(), "only the bystander's fetch is parked");

        produce(offender, 0, 1);
        assertEquals(List.of("record-0"), values(onlyPartition(fetchResponse(parked))));
        assertFalse(bystander.closedByBroker().isDone());
        assertFalse(offender.closedByBroker().isDone());
        assertEquals(List.of(), bystander.protocolErrors());
        assertEquals(List.of(), offender.protocolErrors());
    }
}
