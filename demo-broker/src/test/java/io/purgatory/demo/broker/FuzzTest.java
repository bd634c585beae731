package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A seeded fuzz test: real Produce, Metadata and ApiVersions requests serialized by kafka-clients
 * are mutated (bit flips, truncation, length fields, duplicated or removed bytes, compression codec
 * bits, changes inside a batch with its CRC recomputed) and sent, each on its own connection,
 * beside a well-formed client. Checked: the broker stays up, the good client gets every answer,
 * a new client is served afterwards, and no partition whose batch kafka-clients' own classes
 * reject ({@link Batches#appendable}) is answered {@code NONE}.
 *
 * <p>Bounded by {@code -Dfuzz.mutations} (default 2,000, a few seconds); {@code -Dfuzz.seed}
 * replays a run, and a failure names the seed to replay it with. Single-threaded: one mutated
 * request at a time, on the test's thread, beside the good client's reader thread.
 */
@Tag("integration")
@Tag("stress")
class FuzzTest {
    private static final int MUTATIONS = Integer.getInteger("fuzz.mutations", 2_000);
    private static final int PROBE_ID = 0x5EEDF00D;
    private static final int GOOD_CLIENT_EVERY = 10;
    private static final int READ_TIMEOUT_MS = 20_000;
    private static final List<Compression> COMPRESSIONS = List.of(Compression.NONE, Compression.gzip().build(),
            Compression.snappy().build(), Compression.lz4().build(), Compression.zstd().build());

    /** A request as sent: its bytes after the length prefix, and where its batches start in them. */
    private record Sample(ByteBuffer body, List<Integer> batchStarts) {
    }

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();

    @Test
    void mutatedRequestsNeitherStopTheBrokerNorGetCorruptDataAcked(DemoBroker broker) throws Exception {
        long seed = Long.getLong("fuzz.seed", new Random().nextLong());
        try {
            run(broker, new Random(seed));
        } catch (Throwable failure) {
            throw new AssertionError("fuzz failed; replay with -Dfuzz.seed=" + seed + " -Dfuzz.mutations=" + MUTATIONS, failure);
        }
    }

    private void run(DemoBroker broker, Random random) throws Exception {
        List<CompletableFuture<Answer>> goodAnswers = new ArrayList<>();
        WireClient good = brokers.connect();
        Uuid demoId = topicId(good);
        for (int i = 0; i < MUTATIONS; i++) {
            if (i % GOOD_CLIENT_EVERY == 0) {
                goodAnswers.add(good.send(WireClient.produce("demo", i % 3, i % 20 == 0 ? (short) -1 : 1, 30_000,
                        WireClient.records(COMPRESSIONS.get(random.nextInt(COMPRESSIONS.size())), 1 + random.nextInt(5)), (short) 12)));
            }
            Sample sample = sample(random, demoId);
            byte[] frame = mutate(random, sample);
            check(frame, exchange(broker.port(), frame));
        }
        for (CompletableFuture<Answer> answer : goodAnswers) {
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(answer)).errorCode());
        }
        assertEquals(List.of(), good.protocolErrors());
        assertFalse(good.closedByBroker().isDone(), "the good client's connection stays open");
        WireClient newcomer = brokers.connect();
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(
                newcomer.send(WireClient.produce("demo", 0, (short) -1, 10_000, 1)))).errorCode());
    }

    private static Uuid topicId(WireClient client) throws IOException {
        MetadataResponse metadata = (MetadataResponse) DemoBrokerTest.answer(client.send(new MetadataRequest.Builder(
                new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("demo"))))
                .build((short) 12))).response();
        return metadata.data().topics().iterator().next().topicId();
    }

    /** A well-formed request, picked at random: mostly produces, in every version and codec kafka-clients writes. */
    private static Sample sample(Random random, Uuid demoId) {
        int kind = random.nextInt(10);
        int correlationId = random.nextInt(1 << 20);
        if (kind == 0) {
            short version = version(random, ApiKeys.API_VERSIONS);
            return serialized(new ApiVersionsRequest.Builder().build(version), correlationId, List.of());
        }
        if (kind == 1) {
            short version = (short) (4 + random.nextInt(ApiKeys.METADATA.latestVersion() - 3));
            return serialized(new MetadataRequest.Builder(List.of("demo"), false).build(version), correlationId, List.of());
        }
        short version = version(random, ApiKeys.PRODUCE);
        ProduceRequestData data = new ProduceRequestData()
                .setAcks(random.nextInt(4) == 0 ? (short) -1 : 1)
                .setTimeoutMs(30_000);
        List<MemoryRecords> batches = new ArrayList<>();
        int partitions = 1 + random.nextInt(2);
        List<PartitionProduceData> partitionData = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<Compression> usable = version >= 7 ? COMPRESSIONS : COMPRESSIONS.subList(0, 4);
            MemoryRecords records = WireClient.records(usable.get(random.nextInt(usable.size())), 1 + random.nextInt(20));
            batches.add(records);
            partitionData.add(new PartitionProduceData().setIndex(p).setRecords(records));
        }
        TopicProduceData topic = new TopicProduceData().setPartitionData(partitionData);
        data.topicData().add(version >= 13 ? topic.setTopicId(demoId) : topic.setName("demo"));
        ProduceRequest request = ProduceRequest.builder(data).build(version);
        ByteBuffer body = request.serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, version, "fuzz", correlationId));
        List<Integer> starts = new ArrayList<>();
        for (MemoryRecords records : batches) {
            starts.add(indexOf(body, records.buffer()));
        }
        return new Sample(body, starts);
    }

    private static short version(Random random, ApiKeys api) {
        return (short) (api.oldestVersion() + random.nextInt(api.latestVersion() - api.oldestVersion() + 1));
    }

    private static Sample serialized(AbstractRequest request, int correlationId, List<Integer> batchStarts) {
        return new Sample(request.serializeWithHeader(new RequestHeader(request.apiKey(), request.version(), "fuzz", correlationId)),
                batchStarts);
    }

    /** One or two mutations of the sample; returns the whole frame, length prefix included. */
    private static byte[] mutate(Random random, Sample sample) {
        byte[] body = new byte[sample.body().remaining()];
        sample.body().duplicate().get(body);
        Integer declaredLength = null;
        int rounds = random.nextInt(3) == 0 ? 2 : 1;
        for (int round = 0; round < rounds; round++) {
            switch (random.nextInt(8)) {
                case 0 -> flipBits(random, body, 0, body.length);
                case 1 -> body = java.util.Arrays.copyOf(body, random.nextInt(body.length + 1));
                case 2 -> declaredLength = randomLength(random, body.length);
                case 3 -> overwriteWithExtreme(random, body);
                case 4 -> body = duplicateRange(random, body);
                case 5 -> body = removeRange(random, body);
                case 6 -> changeCodec(random, body, sample.batchStarts());
                default -> changeInsideBatch(random, body, sample.batchStarts());
            }
        }
        ByteBuffer frame = ByteBuffer.allocate(4 + body.length);
        frame.putInt(declaredLength != null ? declaredLength : body.length).put(body);
        return frame.array();
    }

    private static void flipBits(Random random, byte[] bytes, int from, int to) {
        if (to <= from) {
            return;
        }
        for (int i = 1 + random.nextInt(8); i > 0; i--) {
            int at = from + random.nextInt(to - from);
            bytes[at] ^= (byte) (1 << random.nextInt(8));
        }
    }

    private static int randomLength(Random random, int actual) {
        return switch (random.nextInt(5)) {
            case 0 -> -1 - random.nextInt(1000);
            case 1 -> 0;
            case 2 -> Integer.MAX_VALUE - random.nextInt(1000);
            case 3 -> Math.max(0, actual - 1 - random.nextInt(16));
            default -> actual + 1 + random.nextInt(16);
        };
    }

    /** Overwrites 1, 2 or 4 bytes somewhere (often a length or count field) with an extreme value. */
    private static void overwriteWithExtreme(Random random, byte[] bytes) {
        int width = new int[] {1, 2, 4}[random.nextInt(3)];
        if (bytes.length < width) {
            return;
        }
        int at = random.nextInt(bytes.length - width + 1);
        long value = new long[] {0, -1, 1, 0x7F, 0xFF, Short.MAX_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE, random.nextInt()}
                [random.nextInt(9)];
        for (int i = 0; i < width; i++) {
            bytes[at + i] = (byte) (value >>> (8 * (width - 1 - i)));
        }
    }

    private static byte[] duplicateRange(Random random, byte[] bytes) {
        if (bytes.length == 0) {
            return bytes;
        }
        int from = random.nextInt(bytes.length);
        int length = 1 + random.nextInt(Math.min(64, bytes.length - from));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, from + length);
        out.write(bytes, from, bytes.length - from);
        return out.toByteArray();
    }

    private static byte[] removeRange(Random random, byte[] bytes) {
        if (bytes.length == 0) {
            return bytes;
        }
        int from = random.nextInt(bytes.length);
        int length = 1 + random.nextInt(Math.min(64, bytes.length - from));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, from);
        out.write(bytes, from + length, bytes.length - from - length);
        return out.toByteArray();
    }

    /** Sets a batch's codec bits to any of 0 to 7 and recomputes its CRC, so only deeper checks can refuse it. */
    private static void changeCodec(Random random, byte[] bytes, List<Integer> batchStarts) {
        int start = batchStarts.isEmpty() ? -1 : batchStarts.get(random.nextInt(batchStarts.size()));
        if (start < 0 || start + Batches.RECORDS_OFFSET > bytes.length) { // no batch, or an earlier mutation cut it
            flipBits(random, bytes, 0, bytes.length);
            return;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int attributes = start + Batches.ATTRIBUTES_OFFSET + 1; // low byte of the 2-byte attributes
        buffer.put(attributes, (byte) ((buffer.get(attributes) & ~7) | random.nextInt(8)));
        Batches.refreshCrc(buffer, start);
    }

    /** Changes bytes inside a batch after its CRC field (header fields or records) and recomputes its CRC. */
    private static void changeInsideBatch(Random random, byte[] bytes, List<Integer> batchStarts) {
        int start = batchStarts.isEmpty() ? -1 : batchStarts.get(random.nextInt(batchStarts.size()));
        if (start < 0 || start + Batches.RECORDS_OFFSET > bytes.length) { // no batch, or an earlier mutation cut it
            flipBits(random, bytes, 0, bytes.length);
            return;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int end = Math.max(start + Batches.RECORDS_OFFSET, Math.min(bytes.length, start + 12 + buffer.getInt(start + 8)));
        byte[] batch = java.util.Arrays.copyOfRange(bytes, start + Batches.ATTRIBUTES_OFFSET, end);
        if (random.nextBoolean()) {
            flipBits(random, batch, 0, batch.length);
        } else {
            overwriteWithExtreme(random, batch);
        }
        System.arraycopy(batch, 0, bytes, start + Batches.ATTRIBUTES_OFFSET, batch.length);
        Batches.refreshCrc(buffer, start);
    }

    /**
     * Sends the frame and a well-formed probe on a new connection, half-closes, and reads every
     * response until the broker closes. The broker must answer or close; it must not hang.
     */
    private static List<ByteBuffer> exchange(int port, byte[] frame) throws IOException {
        List<ByteBuffer> responses = new ArrayList<>();
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(frame);
            ByteBuffer probe = new ApiVersionsRequest.Builder().build((short) 3)
                    .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "probe", PROBE_ID));
            out.write(ByteBuffer.allocate(4).putInt(probe.remaining()).array());
            out.write(probe.array(), probe.arrayOffset() + probe.position(), probe.remaining());
            out.flush();
            socket.shutdownOutput();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            while (true) {
                int length = in.readInt();
                byte[] response = new byte[length];
                in.readFully(response);
                responses.add(ByteBuffer.wrap(response));
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the broker neither answered nor closed the connection within " + READ_TIMEOUT_MS + " ms", e);
        } catch (EOFException | java.net.SocketException closed) {
            return responses;
        }
    }

    /** If the frame is a produce that parses, no partition kafka-clients would reject may be answered NONE. */
    private static void check(byte[] frame, List<ByteBuffer> responses) {
        ByteBuffer body = ByteBuffer.wrap(frame, 4, frame.length - 4).slice();
        if (ByteBuffer.wrap(frame).getInt() != body.remaining()) {
            return;
        }
        final RequestHeader header;
        final ProduceRequest request;
        try {
            header = RequestHeader.parse(body);
            if (header.apiKey() != ApiKeys.PRODUCE || header.correlationId() == PROBE_ID) {
                return;
            }
            request = (ProduceRequest) AbstractRequest.parseRequest(ApiKeys.PRODUCE, header.apiVersion(), new ByteBufferAccessor(body)).request;
        } catch (RuntimeException unparseable) {
            return;
        }
        Map<String, PartitionProduceData> lastEntries = new HashMap<>();
        for (TopicProduceData topic : request.data().topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                lastEntries.put(key(topic.name(), topic.topicId(), partition.index()), partition);
            }
        }
        for (ByteBuffer response : responses) {
            if (response.getInt(0) != header.correlationId()) {
                continue;
            }
            ProduceResponse produce = (ProduceResponse) AbstractResponse.parseResponse(response.duplicate(), header);
            for (TopicProduceResponse topic : produce.data().responses()) {
                for (PartitionProduceResponse partition : topic.partitionResponses()) {
                    if (partition.errorCode() != Errors.NONE.code()) {
                        continue;
                    }
                    PartitionProduceData sent = lastEntries.get(key(topic.name(), topic.topicId(), partition.index()));
                    boolean appendable = sent != null && sent.records() instanceof MemoryRecords records
                            && Batches.appendable(records, header.apiVersion());
                    if (!appendable) {
                        throw new AssertionError("produce v" + header.apiVersion() + " partition " + partition.index()
                                + " acked NONE, but kafka-clients rejects its batch");
                    }
                }
            }
        }
    }

    private static String key(String topic, Uuid topicId, int partition) {
        return (topicId != null && !Uuid.ZERO_UUID.equals(topicId) ? topicId.toString() : topic) + "-" + partition;
    }

    private static int indexOf(ByteBuffer haystack, ByteBuffer needle) {
        int length = Math.min(needle.remaining(), Batches.RECORDS_OFFSET);
        outer:
        for (int i = haystack.position(); i <= haystack.limit() - length; i++) {
            for (int j = 0; j < length; j++) {
                if (haystack.get(i + j) != needle.get(needle.position() + j)) {
                    continue outer;
                }
            }
            return i - haystack.position();
        }
        throw new IllegalStateException("batch not found in its request");
    }
}
