package io.purgatory.demo.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A test's own Kafka protocol client over a plain socket: sends pipelined requests built with
 * kafka-clients' classes, hands out each response as a future, checks that responses come back in
 * request order, and can send raw bytes. A reader thread completes the futures; thread-safe.
 */
public final class WireClient implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final Object writeLock = new Object(); // orders frames on the socket; held while writing
    private final ArrayDeque<Pending> pending = new ArrayDeque<>(); // guarded by itself, never held while blocking
    private final CompletableFuture<Void> closedByBroker = new CompletableFuture<>();
    private final List<String> protocolErrors = new CopyOnWriteArrayList<>();
    private int nextCorrelationId; // guarded by writeLock

    private record Pending(RequestHeader header, long sentNanos, CompletableFuture<Answer> answer) {
    }

    /** A response and how long after sending it arrived. */
    public record Answer(AbstractResponse response, long elapsedNanos) {
    }

    public WireClient(int port) throws IOException {
        socket = new Socket("localhost", port);
        socket.setTcpNoDelay(true);
        out = new DataOutputStream(socket.getOutputStream());
        Thread reader = new Thread(this::readLoop, "wire-client-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Sends a request; the future completes with its response (never, for an acks=0 produce). */
    public CompletableFuture<Answer> send(AbstractRequest request) throws IOException {
        return send(request, frame -> { });
    }

    /**
     * Sends a request whose serialized bytes (header included, no length prefix) {@code rewrite}
     * changed in place first, keeping their length: bytes no kafka-clients builder would write.
     */
    public CompletableFuture<Answer> send(AbstractRequest request, Consumer<ByteBuffer> rewrite) throws IOException {
        synchronized (writeLock) {
            RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "wire-client", nextCorrelationId++);
            Pending p = new Pending(header, System.nanoTime(), new CompletableFuture<>());
            boolean expectsResponse = !(request instanceof ProduceRequest) || ((ProduceRequest) request).acks() != 0;
            if (expectsResponse) {
                synchronized (pending) {
                    pending.add(p);
                }
            }
            ByteBuffer frame = request.serializeWithHeader(header);
            rewrite.accept(frame.duplicate());
            writeFrame(frame);
            return p.answer();
        }
    }

    /** Writes bytes as they are, no length prefix added. */
    void sendRaw(byte[] bytes) throws IOException {
        synchronized (writeLock) {
            out.write(bytes);
            out.flush();
        }
    }

    /** Completes when the broker closes the connection. */
    CompletableFuture<Void> closedByBroker() {
        return closedByBroker;
    }

    /** Out-of-order or unparseable responses seen so far; empty when the broker kept the protocol. */
    public List<String> protocolErrors() {
        return protocolErrors;
    }

    public static ProduceRequest produce(String topic, int partition, short acks, int timeoutMs, int records) {
        return produce(topic, List.of(partition), acks, timeoutMs, records);
    }

    /** A produce of {@code records} records to each of {@code partitions} of one topic. */
    public static ProduceRequest produce(String topic, List<Integer> partitions, short acks, int timeoutMs, int records) {
        List<ProduceRequestData.PartitionProduceData> partitionData = new ArrayList<>(partitions.size());
        for (int partition : partitions) {
            partitionData.add(new ProduceRequestData.PartitionProduceData()
                    .setIndex(partition)
                    .setRecords(records(Compression.NONE, records)));
        }
        // version 12 addresses topics by name; the broker's v13 (topic id) path is covered by KafkaProducer
        return produce(topic, partitionData, acks, timeoutMs, (short) 12);
    }

    /** A produce of {@code records} to one partition, in {@code version} (12 or older: topics by name). */
    public static ProduceRequest produce(String topic, int partition, short acks, int timeoutMs, MemoryRecords records, short version) {
        return produce(topic, List.of(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records)),
                acks, timeoutMs, version);
    }

    private static ProduceRequest produce(String topic, List<ProduceRequestData.PartitionProduceData> partitionData,
                                          short acks, int timeoutMs, short version) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(topic)
                .setPartitionData(partitionData));
        return ProduceRequest.builder(new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs).setTopicData(topics))
                .build(version);
    }

    /** One uncompressed batch of {@code count} records, values {@code record-0, record-1, ...}. */
    public static MemoryRecords records(int count) {
        return records(Compression.NONE, count);
    }

    /** One batch of {@code count} small records, as kafka-clients writes it. */
    public static MemoryRecords records(Compression compression, int count) {
        SimpleRecord[] batch = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            batch[i] = new SimpleRecord(("record-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(compression, batch);
    }

    private void writeFrame(ByteBuffer frame) throws IOException {
        out.writeInt(frame.remaining());
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
    }

    private void readLoop() {
        try {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            while (true) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                long now = System.nanoTime();
                final Pending p;
                synchronized (pending) {
                    p = pending.poll();
                }
                if (p == null) {
                    protocolErrors.add("a response nobody asked for");
                    continue;
                }
                ByteBuffer buffer = ByteBuffer.wrap(frame);
                int correlationId = buffer.getInt(0);
                if (correlationId != p.header().correlationId()) {
                    protocolErrors.add("expected correlation id " + p.header().correlationId() + " but got " + correlationId);
                }
                try {
                    p.answer().complete(new Answer(AbstractResponse.parseResponse(buffer, p.header()), now - p.sentNanos()));
                } catch (RuntimeException e) {
                    protocolErrors.add("unparseable " + p.header().apiKey() + " response: " + e);
                    p.answer().completeExceptionally(e);
                }
            }
        } catch (EOFException e) {
            closedByBroker.complete(null);
        } catch (IOException e) {
            closedByBroker.complete(null); // reset by the broker, or closed by us
        } finally {
            synchronized (pending) {
                pending.forEach(p -> p.answer().completeExceptionally(new EOFException("connection closed")));
                pending.clear();
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
