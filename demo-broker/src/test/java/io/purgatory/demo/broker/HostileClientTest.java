package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests that parse but that no Kafka client would send: each is answered with Kafka's error,
 * nothing it carries is appended, and the connection goes on serving its next request.
 */
@Tag("integration")
class HostileClientTest {
    private static final short ACKS_ALL = -1;
    private static final int NAME_BYTES = 11_000;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;
    private WireClient client;

    @BeforeEach
    void start() throws Exception {
        broker = brokers.get();
        client = brokers.connect();
    }

    @Test
    void aTopicNameThatCannotBeEchoedIsRefusedAndTheConnectionGoesOn() throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(30_000);
        data.topicData().add(topic("demo", partition(0, WireClient.records(Compression.NONE, 1))));
        data.topicData().add(topic("x".repeat(NAME_BYTES), partition(0, WireClient.records(Compression.NONE, 1))));
        ProduceRequest request = ProduceRequest.builder(data).build((short) 12);

        ProduceResponse response = (ProduceResponse) answer(client.send(request, HostileClientTest::nameToFf)).response();

        assertEquals(2, response.data().responses().size());
        for (TopicProduceResponse topic : response.data().responses()) {
            Errors expected = topic.name().equals("demo") ? Errors.NONE : Errors.INVALID_TOPIC_EXCEPTION;
            assertEquals(expected.code(), topic.partitionResponses().get(0).errorCode(), "topic " + topic.name().substring(0, 4));
        }
        assertEquals(1, broker.replicaManager().partition("demo", 0).leaderEndOffset());
        assertAnswersNext();
    }

    @Test
    void aMetadataRequestForSuchANameIsAnsweredWithInvalidTopic() throws Exception {
        MetadataRequest request = new MetadataRequest.Builder(new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("x".repeat(NAME_BYTES))))).build((short) 12);

        MetadataResponse response = (MetadataResponse) answer(client.send(request, HostileClientTest::nameToFf)).response();

        MetadataResponseTopic topic = response.data().topics().iterator().next();
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), topic.errorCode());
        assertAnswersNext();
    }

    static Stream<Arguments> topicNames() {
        return Stream.of(
                Arguments.of("a".repeat(249), Errors.UNKNOWN_TOPIC_OR_PARTITION),
                Arguments.of("a".repeat(250), Errors.INVALID_TOPIC_EXCEPTION),
                Arguments.of("slash/in/name", Errors.INVALID_TOPIC_EXCEPTION),
                Arguments.of("..", Errors.INVALID_TOPIC_EXCEPTION),
                Arguments.of("", Errors.INVALID_TOPIC_EXCEPTION),
                Arguments.of("dé", Errors.INVALID_TOPIC_EXCEPTION));
    }

    @ParameterizedTest(name = "{1} for \"{0}\"")
    @MethodSource("topicNames")
    void topicNamesAreValidatedAsKafkaDoes(String name, Errors expected) throws Exception {
        ProduceResponse response = (ProduceResponse) answer(client.send(
                WireClient.produce(name, 0, (short) 1, 1_000, WireClient.records(Compression.NONE, 1), (short) 12))).response();
        assertEquals(expected.code(), response.data().responses().iterator().next().partitionResponses().get(0).errorCode());
    }

    @Test
    void aPartitionListedThousandsOfTimesIsAppendedOnceAndDelaysNobody() throws Exception {
        MemoryRecords one = WireClient.records(Compression.NONE, 1);
        List<PartitionProduceData> copies = new ArrayList<>(Collections.nCopies(2_000, partition(0, one)));
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(30_000);
        data.topicData().add(new TopicProduceData().setName("demo").setPartitionData(copies));

        WireClient bystander = brokers.connect();
        CompletableFuture<Answer> duplicated = client.send(ProduceRequest.builder(data).build((short) 12));
        List<CompletableFuture<Answer>> others = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            others.add(bystander.send(WireClient.produce("demo", 0, ACKS_ALL, 3_000, 1))); // stalled, they time out
        }
        for (CompletableFuture<Answer> other : others) {
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer(other)).errorCode());
        }
        ProduceResponse response = (ProduceResponse) answer(duplicated).response();
        List<PartitionProduceResponse> partitions = response.data().responses().iterator().next().partitionResponses();
        assertEquals(1, partitions.size(), "one answer per distinct partition");
        assertEquals(Errors.NONE.code(), partitions.get(0).errorCode());
        assertEquals(1 + others.size(), broker.replicaManager().partition("demo", 0).leaderEndOffset(), "appended once, beside the others");
        assertEquals(List.of(), bystander.protocolErrors());
    }

    @Test
    void aProduceRepeatingOneTopicThousandsOfTimesClosesItsConnectionUnparsed() throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(10_000);
        data.topicData().add(new TopicProduceData().setName("demo"));
        ByteBuffer one = ProduceRequest.builder(data).build((short) 12)
                .serializeWithHeader(new org.apache.kafka.common.requests.RequestHeader(org.apache.kafka.common.protocol.ApiKeys.PRODUCE,
                        (short) 12, "hostile", 1));
        byte[] bytes = java.util.Arrays.copyOfRange(one.array(), one.arrayOffset() + one.position(), one.arrayOffset() + one.limit());
        // one entry: the array's length (1 + 1, compact), then "demo" (length 4 + 1), no partitions (0 + 1), no tagged fields
        byte[] entries = {2, 5, 'd', 'e', 'm', 'o', 1, 0};
        int at = indexOf(bytes, entries);
        java.io.ByteArrayOutputStream repeated = new java.io.ByteArrayOutputStream();
        repeated.write(bytes, 0, at);
        int copies = 3_000; // kafka-clients takes seconds to parse this many repeats of one topic
        org.apache.kafka.common.utils.internals.ByteUtils.writeUnsignedVarint(copies + 1, new java.io.DataOutputStream(repeated));
        for (int i = 0; i < copies; i++) {
            repeated.write(entries, 1, entries.length - 1);
        }
        repeated.write(bytes, at + entries.length, bytes.length - at - entries.length);
        byte[] body = repeated.toByteArray();

        WireClient offender = brokers.connect();
        offender.sendRaw(ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array());
        Waits.soon().until(() -> offender.closedByBroker().isDone());
        assertEquals(List.of(), offender.protocolErrors(), "closed unanswered, not parsed and answered");
        assertAnswersNext();
    }

    @Test
    void aPartitionWithoutRecordsIsAnsweredWithInvalidRecord() throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks(ACKS_ALL).setTimeoutMs(10_000);
        data.topicData().add(topic("demo", partition(0, null)));

        Answer answer = answer(client.send(ProduceRequest.builder(data).build((short) 12)));

        assertEquals(Errors.INVALID_RECORD.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
        assertAnswersNext();
    }

    static Stream<Arguments> invalidBatches() {
        MemoryRecords plain = WireClient.records(Compression.NONE, 3);
        Set<Errors> corrupt = Set.of(Errors.CORRUPT_MESSAGE, Errors.INVALID_RECORD);
        List<Arguments> cases = new ArrayList<>();
        for (int codec = 5; codec <= 7; codec++) {
            cases.add(Arguments.of("compression codec " + codec, Batches.withCodec(plain, codec), (short) 12, Set.of(Errors.CORRUPT_MESSAGE)));
        }
        for (Compression compression : List.of(Compression.gzip().build(), Compression.snappy().build(), Compression.lz4().build(),
                Compression.zstd().build())) {
            cases.add(Arguments.of("garbage inside " + compression.type() + " data",
                    Batches.rewritten(WireClient.records(compression, 50), HostileClientTest::garbleSecondHalf), (short) 12, corrupt));
        }
        cases.add(Arguments.of("a record whose length is negative", Batches.rewritten(plain, b -> b.put(Batches.RECORDS_OFFSET, (byte) 0x7f)),
                (short) 12, Set.of(Errors.INVALID_RECORD)));
        cases.add(Arguments.of("a 1-record batch claiming 2,147,483,647 records",
                Batches.rewritten(WireClient.records(Compression.NONE, 1),
                        b -> b.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, Integer.MAX_VALUE)),
                (short) 12, Set.of(Errors.INVALID_RECORD)));
        cases.add(Arguments.of("a 1-record batch whose header says 2, consistently",
                Batches.rewritten(WireClient.records(Compression.NONE, 1), b -> {
                    b.putInt(DefaultRecordBatch.RECORDS_COUNT_OFFSET, 2);
                    b.putInt(DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET, 1);
                }), (short) 12, Set.of(Errors.INVALID_RECORD)));
        cases.add(Arguments.of("a base offset other than 0", Batches.rewritten(plain, b -> b.putLong(0, 5)), (short) 12,
                Set.of(Errors.INVALID_RECORD)));
        cases.add(Arguments.of("a CRC that does not match", flipLastByte(plain), (short) 12, Set.of(Errors.CORRUPT_MESSAGE)));
        cases.add(Arguments.of("zstd in produce v6", WireClient.records(Compression.zstd().build(), 3), (short) 6,
                Set.of(Errors.UNSUPPORTED_COMPRESSION_TYPE)));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidBatches")
    void batchesKafkaWouldRefuseAreRefusedAndNothingIsAppended(String what, MemoryRecords records, short version, Set<Errors> expected)
            throws Exception {
        assertFalse(Batches.appendable(records, version), "the test's own judge agrees the batch is bad");
        // kafka-clients refuses to build zstd below v7: build v7, the same layout as v3 to v6, and relabel the header
        short built = (short) Math.max(version, 7);
        Answer answer = answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 10_000, records, built),
                frame -> frame.putShort(frame.position() + 2, version)));

        Errors error = Errors.forCode(DemoBrokerTest.partitionResponse(answer).errorCode());
        assertTrue(expected.contains(error), what + ": got " + error + ", expected one of " + expected);
        assertEquals(0, broker.replicaManager().partition("demo", 0).leaderEndOffset());
        assertAnswersNext();
    }

    @Test
    void aBatchThatInflatesBeyondTheBoundIsRefusedAsTooLarge() throws Exception {
        byte[] zeros = new byte[8 * 1024 * 1024];
        org.apache.kafka.common.record.internal.SimpleRecord[] records = new org.apache.kafka.common.record.internal.SimpleRecord[9];
        java.util.Arrays.fill(records, new org.apache.kafka.common.record.internal.SimpleRecord(zeros)); // 72 MiB, a few hundred KB gzipped
        MemoryRecords bomb = MemoryRecords.withRecords(Compression.gzip().build(), records);

        Answer answer = answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 10_000, bomb, (short) 12)));

        assertEquals(Errors.MESSAGE_TOO_LARGE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
        assertEquals(0, broker.replicaManager().partition("demo", 0).leaderEndOffset());
        assertAnswersNext();
    }

    @Test
    void everyCompressionTypeKafkaClientsWritesIsAccepted() throws Exception {
        long offset = 0;
        for (Compression compression : List.of(Compression.NONE, Compression.gzip().build(), Compression.snappy().build(),
                Compression.lz4().build(), Compression.zstd().build())) {
            Answer answer = answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 10_000,
                    WireClient.records(compression, 50), (short) 12)));
            PartitionProduceResponse response = DemoBrokerTest.partitionResponse(answer);
            assertEquals(Errors.NONE.code(), response.errorCode(), compression.type().name);
            assertEquals(offset, response.baseOffset());
            offset += 50;
        }
        assertEquals(offset, broker.replicaManager().partition("demo", 0).leaderEndOffset());
    }

    /** The connection still serves: an acks=-1 produce to another partition is answered with NONE. */
    private void assertAnswersNext() throws Exception {
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer(
                client.send(WireClient.produce("demo", 2, ACKS_ALL, 10_000, 1)))).errorCode());
        assertFalse(client.closedByBroker().isDone());
    }

    private static Answer answer(CompletableFuture<Answer> future) {
        return DemoBrokerTest.answer(future);
    }

    private static TopicProduceData topic(String name, PartitionProduceData partition) {
        return new TopicProduceData().setName(name).setPartitionData(List.of(partition));
    }

    private static PartitionProduceData partition(int index, MemoryRecords records) {
        return new PartitionProduceData().setIndex(index).setRecords(records);
    }

    /** Replaces the run of {@value #NAME_BYTES} 'x' in a serialized request by as many 0xFF bytes: no longer UTF-8. */
    private static void nameToFf(ByteBuffer frame) {
        int start = frame.position();
        while (frame.get(start) != 'x') {
            start++;
        }
        for (int i = start; i < start + NAME_BYTES; i++) {
            frame.put(i, (byte) 0xFF);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("not found");
    }

    private static void garbleSecondHalf(ByteBuffer batch) {
        int from = Batches.RECORDS_OFFSET + (batch.limit() - Batches.RECORDS_OFFSET) / 2;
        for (int i = from; i < batch.limit(); i++) {
            batch.put(i, (byte) (i * 31 + 7));
        }
    }

    private static MemoryRecords flipLastByte(MemoryRecords records) {
        ByteBuffer bytes = Batches.copy(records);
        bytes.put(bytes.limit() - 1, (byte) ~bytes.get(bytes.limit() - 1));
        return MemoryRecords.readableRecords(bytes);
    }
}
