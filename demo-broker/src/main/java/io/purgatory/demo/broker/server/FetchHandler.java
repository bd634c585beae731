package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.metrics.BrokerStats.FetchOutcome;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionFetch;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionRead;
import io.purgatory.demo.broker.server.TopicRegistry.Topic;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Answers {@code Fetch} requests (every version kafka-clients has, v4 to v18): resolves each
 * partition (by topic name before v13, by topic id from v13), hands them to
 * {@link ReplicaManager#fetchMessages}, which answers at once or parks a {@link DelayedFetch}, and
 * turns the reads into the response, in the request's order. Consumers read only below the high
 * watermark; with no transactions, the last stable offset is the high watermark, so
 * {@code READ_COMMITTED} reads the same.
 *
 * <p>Errors, as Kafka answers them: an unknown topic name or partition gets
 * {@code UNKNOWN_TOPIC_OR_PARTITION}, an unknown topic id {@code UNKNOWN_TOPIC_ID}, an offset
 * below the log start or past the log end (negative ones too) {@code OFFSET_OUT_OF_RANGE}, and an
 * isolation level other than 0 or 1 {@code INVALID_REQUEST} on every partition. Sizes are clamped
 * as Kafka clamps them: the response holds at most {@code min(max_bytes, }{@value #FETCH_MAX_BYTES}
 * {@code )} (the broker's {@code fetch.max.bytes}: Kafka's default is 55 MiB, this broker's is
 * smaller because it builds every response in memory, and a connection may have many answered at
 * once), negative sizes count as 0, and the first batch is returned whole whatever the limits.
 *
 * <p>Fetch sessions: this broker keeps none. It answers every fetch with session id 0, which tells
 * the Java consumer to send full fetches; a fetch naming a session gets
 * {@code FETCH_SESSION_ID_NOT_FOUND} (the client then starts over with a full fetch) and a
 * sessionless fetch with an epoch other than 0 (new session) or -1 (no session)
 * {@code INVALID_FETCH_SESSION_EPOCH}, as Kafka's session cache does.
 *
 * <p>A fetch naming more partitions than the broker may hold ({@link
 * io.purgatory.demo.broker.config.BrokerConfig#maxPartitions()}: topics come and go, the limit
 * stays) is refused with {@code INVALID_REQUEST} (no partitions) and never parks, so one request
 * cannot make the broker watch millions of partitions; parked fetches hold no record data.
 *
 * <p>A parked fetch whose connection closes leaves the purgatory at once, unanswered
 * ({@link DelayedFetch#abandon}); a Kafka broker keeps it until its {@code max.wait.ms}.
 *
 * <p>Each response sent is counted in {@link BrokerStats} by its {@link FetchOutcome}.
 *
 * <p>Thread-safe: no state of its own; {@link BrokerStats} is thread-safe.
 */
public final class FetchHandler {
    /** The most a fetch response carries beyond its first batch: the broker's {@code fetch.max.bytes}. */
    static final int FETCH_MAX_BYTES = 4 * 1024 * 1024;

    private final ReplicaManager replicaManager;
    private final BrokerStats stats;

    FetchHandler(ReplicaManager replicaManager, BrokerStats stats) {
        this.replicaManager = replicaManager;
        this.stats = stats;
    }

    void handle(FetchRequest request, Responder responder) {
        FetchRequestData data = request.data();
        short version = request.version();
        if (data.sessionId() != FetchMetadata.INVALID_SESSION_ID) {
            refuse(responder, Errors.FETCH_SESSION_ID_NOT_FOUND);
            return;
        }
        if (data.sessionEpoch() != FetchMetadata.INITIAL_EPOCH && data.sessionEpoch() != FetchMetadata.FINAL_EPOCH) {
            refuse(responder, Errors.INVALID_FETCH_SESSION_EPOCH);
            return;
        }
        long requested = 0;
        for (FetchTopic topic : data.topics()) {
            requested += topic.partitions().size();
        }
        if (requested > replicaManager.config().maxPartitions()) {
            refuse(responder, Errors.INVALID_REQUEST);
            return;
        }
        boolean validIsolation = data.isolationLevel() == IsolationLevel.READ_UNCOMMITTED.id()
                || data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        List<PartitionFetch> partitions = new ArrayList<>();
        for (FetchTopic fetchTopic : data.topics()) {
            boolean byId = version >= 13;
            Topic topic = byId ? replicaManager.topics().topic(fetchTopic.topicId()) : replicaManager.topics().topic(fetchTopic.topic());
            for (FetchPartition fetchPartition : fetchTopic.partitions()) {
                Partition partition = topic == null ? null : topic.partition(fetchPartition.partition());
                if (!validIsolation) {
                    partitions.add(PartitionFetch.refused(Errors.INVALID_REQUEST));
                } else if (topic == null) {
                    partitions.add(PartitionFetch.refused(byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION));
                } else if (partition == null) {
                    partitions.add(PartitionFetch.refused(Errors.UNKNOWN_TOPIC_OR_PARTITION));
                } else {
                    partitions.add(PartitionFetch.of(partition, fetchPartition.fetchOffset(), Math.max(0, fetchPartition.partitionMaxBytes())));
                }
            }
        }
        int maxBytes = Math.max(0, Math.min(data.maxBytes(), FETCH_MAX_BYTES));
        boolean readCommitted = data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        DelayedFetch parked = replicaManager.fetchMessages(data.maxWaitMs(), data.minBytes(), maxBytes, partitions,
                (reads, expired) -> {
                    FetchResponse response = FetchResponse.of(response(data.topics(), version, readCommitted, reads));
                    stats.onFetchResponse(outcome(reads, expired));
                    responder.send(response);
                });
        if (parked != null) {
            responder.awaits(parked::abandon);
        }
    }

    /** Answers with a top-level error and no partitions. */
    private void refuse(Responder responder, Errors error) {
        stats.onFetchResponse(FetchOutcome.ERROR);
        responder.send(FetchResponse.of(new FetchResponseData().setErrorCode(error.code()).setSessionId(FetchMetadata.INVALID_SESSION_ID)));
    }

    /** How a response of these reads went: an error on any partition first, then records on any, then why it is empty. */
    private static FetchOutcome outcome(List<PartitionRead> reads, boolean expired) {
        boolean data = false;
        for (PartitionRead read : reads) {
            if (read.error() != Errors.NONE) {
                return FetchOutcome.ERROR;
            }
            data |= read.records().sizeInBytes() > 0;
        }
        return data ? FetchOutcome.DATA : expired ? FetchOutcome.EMPTY_MAX_WAIT : FetchOutcome.EMPTY_AT_ONCE;
    }

    /** The response: the request's topics and partitions in order, with their reads. */
    private static FetchResponseData response(List<FetchTopic> topics, short version, boolean readCommitted, List<PartitionRead> reads) {
        FetchResponseData data = new FetchResponseData().setSessionId(FetchMetadata.INVALID_SESSION_ID);
        int next = 0;
        for (FetchTopic fetchTopic : topics) {
            FetchableTopicResponse topicResponse = version >= 13
                    ? new FetchableTopicResponse().setTopicId(fetchTopic.topicId())
                    : new FetchableTopicResponse().setTopic(fetchTopic.topic());
            for (FetchPartition fetchPartition : fetchTopic.partitions()) {
                PartitionRead read = reads.get(next++);
                if (read.error() != Errors.NONE) {
                    topicResponse.partitions().add(FetchResponse.partitionResponse(fetchPartition.partition(), read.error()));
                    continue;
                }
                topicResponse.partitions().add(new PartitionData()
                        .setPartitionIndex(fetchPartition.partition())
                        .setHighWatermark(read.highWatermark())
                        .setLastStableOffset(read.highWatermark())
                        .setLogStartOffset(read.logStartOffset())
                        .setAbortedTransactions(readCommitted ? new ArrayList<>() : null)
                        .setRecords(read.records()));
            }
            data.responses().add(topicResponse);
        }
        return data;
    }
}
