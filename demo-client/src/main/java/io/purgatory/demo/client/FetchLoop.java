package io.purgatory.demo.client;

import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Long-polls every partition of the topic over one connection: each partition has one fetch in
 * flight at a time (a one-partition Fetch with the run's {@code min_bytes} and
 * {@code max_wait_ms}), and the next is sent as soon as its answer is read. Every answer is counted
 * as "with data", "empty at max wait" (the broker held it for {@code max_wait_ms} and nothing
 * became visible: the high watermark did not move) or "empty early". A record carrying
 * {@link ProduceRequests#SENT_AT_HEADER} adds its end-to-end latency, from the producer's send to
 * this answer, to a histogram (microseconds, 3 significant digits).
 *
 * <p>An {@code OFFSET_OUT_OF_RANGE} answer (retention dropped the records) moves the partition to
 * its log start, found with ListOffsets; any other error is counted and the partition tried again
 * after {@code max_wait_ms}. The run ends on {@link #stopAfter}, or, after {@link #drainThenStop},
 * once every partition has been read up to its high watermark; either way, once the fetches in
 * flight are answered. A lost connection ends it at once.
 *
 * <p>Thread-safety: all state is confined to the connection's event loop; the public methods hop
 * onto it, and the futures they return complete there.
 */
final class FetchLoop {
    private static final Logger LOG = LoggerFactory.getLogger(FetchLoop.class);

    private final KafkaConnection connection;
    private final Handshake.ConsumerSetup setup;
    private final ConsumeOptions options;
    private final EventLoop loop;
    private final long maxWaitNanos;
    private final CompletableFuture<ConsumeReport> done = new CompletableFuture<>();

    // event loop only
    private final Map<Integer, PartitionState> partitions = new TreeMap<>();
    private final Map<String, Long> errors = new TreeMap<>();
    private final Histogram endToEndMicros = new Histogram(3);
    private long startNanos;
    private long records;
    private long bytes;
    private long fetchesWithData;
    private long fetchesEmptyAtMaxWait;
    private long fetchesEmptyEarly;
    private boolean stopping;
    private boolean draining;
    private long drainStartNanos;
    private String disconnect;
    private boolean finished;

    /** One partition's reading; event loop only. */
    private static final class PartitionState {
        long nextOffset;
        boolean inFlight;
        boolean caughtUp;

        PartitionState(long nextOffset) {
            this.nextOffset = nextOffset;
        }
    }

    FetchLoop(KafkaConnection connection, Handshake.ConsumerSetup setup, ConsumeOptions options) {
        this.connection = connection;
        this.setup = setup;
        this.options = options;
        this.loop = connection.eventLoop();
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(options.maxWaitMs());
        setup.startOffsets().forEach((partition, offset) -> partitions.put(partition, new PartitionState(offset)));
    }

    /** Starts fetching; the future completes with the report when the run ends. */
    CompletableFuture<ConsumeReport> start() {
        loop.execute(() -> {
            startNanos = System.nanoTime();
            connection.closeFuture().thenAccept(this::onConnectionClosed);
            partitions.keySet().forEach(this::fetch);
        });
        return done;
    }

    /** Ends the run {@code millis} from now (once the fetches in flight are answered). */
    void stopAfter(long millis) {
        loop.schedule(this::stop, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Ends the run once every partition has been read up to the high watermark of an answer to a
     * fetch sent after this call (so it has every record committed before the call), or after
     * {@link ConsumeOptions#drainMs()}, whichever is first.
     */
    void drainThenStop() {
        loop.execute(() -> {
            draining = true;
            drainStartNanos = System.nanoTime();
        });
        stopAfter(options.drainMs());
    }

    /** The counters now, taken on the event loop. */
    CompletableFuture<ConsumeProgress> progress() {
        return CompletableFuture.supplyAsync(() -> new ConsumeProgress(System.nanoTime() - startNanos, records, fetchesWithData,
                fetchesEmptyAtMaxWait, errorCount(), endToEndMicros.getTotalCount() > 0 ? endToEndMicros.getValueAtPercentile(50) : -1), loop);
    }

    private void stop() {
        stopping = true;
        maybeFinish();
    }

    private void fetch(int partition) {
        PartitionState state = partitions.get(partition);
        if (stopping || disconnect != null) {
            maybeFinish();
            return;
        }
        state.inFlight = true;
        long sentNanos = System.nanoTime();
        connection.send(fetchRequest(partition, state.nextOffset), true)
                .whenComplete((response, failure) -> onAnswer(partition, sentNanos, response, failure));
    }

    private FetchRequest fetchRequest(int partition, long offset) {
        FetchTopic topic = setup.fetchByTopicId()
                ? new FetchTopic().setTopicId(setup.topic().id())
                : new FetchTopic().setTopic(setup.topic().name());
        topic.partitions().add(new FetchPartition()
                .setPartition(partition)
                .setFetchOffset(offset)
                .setPartitionMaxBytes(options.partitionMaxBytes())
                .setLogStartOffset(-1)
                .setCurrentLeaderEpoch(-1)
                .setLastFetchedEpoch(-1));
        FetchRequestData data = new FetchRequestData()
                .setReplicaId(FetchRequest.CONSUMER_REPLICA_ID)
                .setMaxWaitMs(options.maxWaitMs())
                .setMinBytes(options.minBytes())
                .setMaxBytes(options.partitionMaxBytes())
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1); // no fetch session: every fetch is a full one
        data.topics().add(topic);
        return new FetchRequest(data, setup.fetchVersion());
    }

    private void onAnswer(int partition, long sentNanos, AbstractResponse response, Throwable failure) {
        PartitionState state = partitions.get(partition);
        state.inFlight = false;
        if (failure != null) {
            countError(failure instanceof KafkaConnection.ClosedException ? "disconnected" : "client error: " + failure.getClass().getSimpleName());
            maybeFinish();
            return;
        }
        FetchResponse fetch = (FetchResponse) response;
        Errors topLevel = Errors.forCode(fetch.data().errorCode());
        PartitionData data = onlyPartition(fetch);
        Errors error = topLevel != Errors.NONE ? topLevel : data == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(data.errorCode());
        if (error == Errors.OFFSET_OUT_OF_RANGE) {
            countError(error.name());
            resetToLogStart(partition);
        } else if (error != Errors.NONE) {
            countError(error.name());
            loop.schedule(() -> fetch(partition), options.maxWaitMs(), TimeUnit.MILLISECONDS);
        } else {
            read(state, data, sentNanos);
            fetch(partition);
        }
    }

    private static PartitionData onlyPartition(FetchResponse response) {
        for (FetchableTopicResponse topic : response.data().responses()) {
            for (PartitionData partition : topic.partitions()) {
                return partition;
            }
        }
        return null;
    }

    private void read(PartitionState state, PartitionData data, long sentNanos) {
        long waitedNanos = System.nanoTime() - sentNanos;
        long nowMicros = WallClock.nowMicros();
        long consumed = 0;
        for (RecordBatch batch : FetchResponse.recordsOrFail(data).batches()) {
            for (Record record : batch) {
                if (record.offset() < state.nextOffset) {
                    continue; // the batch began before our offset
                }
                consumed++;
                for (Header header : record.headers()) {
                    if (ProduceRequests.SENT_AT_HEADER.equals(header.key()) && header.value() != null && header.value().length == Long.BYTES) {
                        endToEndMicros.recordValue(Math.max(0, nowMicros - ByteBuffer.wrap(header.value()).getLong()));
                    }
                }
            }
            state.nextOffset = Math.max(state.nextOffset, batch.nextOffset());
        }
        bytes += FetchResponse.recordsSize(data);
        records += consumed;
        if (consumed > 0) {
            fetchesWithData++;
        } else if (waitedNanos >= maxWaitNanos) {
            fetchesEmptyAtMaxWait++;
        } else {
            fetchesEmptyEarly++;
        }
        if (draining && sentNanos - drainStartNanos >= 0 && state.nextOffset >= data.highWatermark()) {
            state.caughtUp = true;
            if (partitions.values().stream().allMatch(s -> s.caughtUp)) {
                stopping = true;
            }
        }
    }

    private void resetToLogStart(int partition) {
        ListOffsetsRequest request = Handshake.listOffsets(setup.topic().name(), List.of(partition),
                ListOffsetsRequest.EARLIEST_TIMESTAMP, setup.listOffsetsVersion());
        partitions.get(partition).inFlight = true;
        connection.send(request, true).whenComplete((response, failure) -> {
            PartitionState state = partitions.get(partition);
            state.inFlight = false;
            if (failure == null) {
                for (var topic : ((ListOffsetsResponse) response).topics()) {
                    for (ListOffsetsPartitionResponse answer : topic.partitions()) {
                        if (answer.errorCode() == Errors.NONE.code() && answer.offset() >= 0) {
                            LOG.info("{}-{}: offset {} is gone; reading on from the log start, {}", setup.topic().name(), partition,
                                    state.nextOffset, answer.offset());
                            state.nextOffset = answer.offset();
                        }
                    }
                }
            }
            fetch(partition);
        });
    }

    private void countError(String name) {
        errors.merge(name, 1L, Long::sum);
    }

    private long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    private void onConnectionClosed(String reason) {
        if (!finished) {
            disconnect = reason;
            maybeFinish();
        }
    }

    private void maybeFinish() {
        if (finished || !(stopping || disconnect != null) || partitions.values().stream().anyMatch(state -> state.inFlight)) {
            return;
        }
        finished = true;
        Map<Integer, Long> nextOffsets = new TreeMap<>();
        partitions.forEach((partition, state) -> nextOffsets.put(partition, state.nextOffset));
        done.complete(new ConsumeReport(options, setup, System.nanoTime() - startNanos, records, bytes, fetchesWithData,
                fetchesEmptyAtMaxWait, fetchesEmptyEarly, Collections.unmodifiableMap(new TreeMap<>(errors)), endToEndMicros.copy(),
                Collections.unmodifiableMap(nextOffsets), disconnect));
    }
}
