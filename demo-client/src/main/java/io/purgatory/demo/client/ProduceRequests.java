package io.purgatory.demo.client;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Builds the load's produce requests: request {@code i} carries one record batch with one record
 * (no key, a {@code recordSize}-byte value, and a {@value #SENT_AT_HEADER} header holding the wall
 * clock time it was built, in microseconds since the epoch, from which a consumer measures
 * end-to-end latency) for partition {@code i mod partitions}, with the run's acks and timeout, in
 * the negotiated Produce version; from v13 the topic is named by its id.
 *
 * <p>Thread-safe: immutable (the shared value bytes are never written after construction).
 */
final class ProduceRequests {
    /** The header carrying a record's send time: 8 bytes, big-endian microseconds since the epoch. */
    static final String SENT_AT_HEADER = "sent-at-us";

    private final String topic;
    private final Handshake.Result setup;
    private final List<Integer> partitions;
    private final short acks;
    private final int timeoutMs;
    private final byte[] value;

    ProduceRequests(Handshake.Result setup, ClientOptions options) {
        this.setup = setup;
        this.topic = setup.topic().name();
        this.partitions = setup.topic().partitions();
        this.acks = options.acks();
        this.timeoutMs = options.timeoutMs();
        this.value = new byte[options.recordSize()];
        Arrays.fill(value, (byte) 'p');
    }

    /** The partition request {@code index} goes to. */
    int partitionOf(long index) {
        return partitions.get(Math.floorMod(index, partitions.size()));
    }

    ProduceRequest build(long index) {
        long nowMicros = WallClock.nowMicros();
        Header sentAt = new RecordHeader(SENT_AT_HEADER, ByteBuffer.allocate(Long.BYTES).putLong(0, nowMicros).array());
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(nowMicros / 1000, null, value, new Header[] {sentAt}));
        TopicProduceData topicData = new TopicProduceData()
                .setPartitionData(List.of(new PartitionProduceData().setIndex(partitionOf(index)).setRecords(records)));
        if (setup.produceByTopicId()) {
            topicData.setTopicId(setup.topic().id());
        } else {
            topicData.setName(topic);
        }
        ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(timeoutMs);
        data.topicData().add(topicData);
        short version = setup.produceVersion();
        return new ProduceRequest.Builder(version, version, data).build(version);
    }
}
