package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.log.PartitionLog.OffsetAndTimestamp;
import io.purgatory.demo.broker.log.PartitionLog;
import io.purgatory.demo.broker.server.TopicRegistry.Topic;
import java.util.Set;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * Answers {@code ListOffsets} (v1 to v11), as Kafka's {@code handleListOffsetRequest} does for a
 * consumer: {@code EARLIEST} (and {@code EARLIEST_LOCAL}: there is no tiered storage) is the log
 * start offset; {@code LATEST} is the high watermark (and the last stable offset, the same here);
 * {@code MAX_TIMESTAMP} the record with the largest timestamp below the high watermark; a timestamp
 * {@code >= 0} the first record below the high watermark stamped at or after it, or offset -1 when
 * there is none. {@code LATEST_TIERED} and {@code EARLIEST_PENDING_UPLOAD} find nothing (offset
 * -1). Every offset found carries leader epoch 0 (from v4, the first version with the field).
 *
 * <p>Errors: unknown topic or partition, {@code UNKNOWN_TOPIC_OR_PARTITION}; a partition listed
 * twice, any other negative timestamp, or an isolation level other than 0 or 1,
 * {@code INVALID_REQUEST}.
 *
 * <p>Thread-safe: no state of its own.
 */
public final class ListOffsetsHandler {
    private final ReplicaManager replicaManager;

    ListOffsetsHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    ListOffsetsResponse handle(ListOffsetsRequest request) {
        Set<TopicPartition> duplicates = request.duplicatePartitions();
        byte isolation = request.data().isolationLevel();
        boolean validIsolation = isolation == IsolationLevel.READ_UNCOMMITTED.id() || isolation == IsolationLevel.READ_COMMITTED.id();
        ListOffsetsResponseData data = new ListOffsetsResponseData();
        for (ListOffsetsTopic listTopic : request.topics()) {
            Topic topic = replicaManager.topics().topic(listTopic.name());
            ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(listTopic.name());
            for (ListOffsetsPartition listPartition : listTopic.partitions()) {
                ListOffsetsPartitionResponse response = new ListOffsetsPartitionResponse()
                        .setPartitionIndex(listPartition.partitionIndex())
                        .setTimestamp(ListOffsetsResponse.UNKNOWN_TIMESTAMP)
                        .setOffset(ListOffsetsResponse.UNKNOWN_OFFSET)
                        .setLeaderEpoch(ListOffsetsResponse.UNKNOWN_EPOCH);
                Partition partition = topic == null ? null : topic.partition(listPartition.partitionIndex());
                if (!validIsolation || duplicates.contains(new TopicPartition(listTopic.name(), listPartition.partitionIndex()))) {
                    response.setErrorCode(Errors.INVALID_REQUEST.code());
                } else if (partition == null || partition.isDeleted()) {
                    response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    lookUp(partition, listPartition.timestamp(), request.version(), response);
                }
                topicResponse.partitions().add(response);
            }
            data.topics().add(topicResponse);
        }
        return new ListOffsetsResponse(data);
    }

    /** Fills in the offset found; the leader epoch only from v4, which has the field. */
    private static void lookUp(Partition partition, long timestamp, short version, ListOffsetsPartitionResponse response) {
        final OffsetAndTimestamp found;
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            found = partition.read((log, highWatermark) -> new OffsetAndTimestamp(log.logStartOffset(), ListOffsetsResponse.UNKNOWN_TIMESTAMP));
        } else if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            found = partition.read((log, highWatermark) -> new OffsetAndTimestamp(highWatermark, ListOffsetsResponse.UNKNOWN_TIMESTAMP));
        } else if (timestamp == ListOffsetsRequest.MAX_TIMESTAMP) {
            found = partition.read((log, highWatermark) -> log.offsetOfMaxTimestamp(highWatermark));
        } else if (timestamp == ListOffsetsRequest.LATEST_TIERED_TIMESTAMP || timestamp == ListOffsetsRequest.EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
            found = null;
        } else if (timestamp < 0) {
            response.setErrorCode(Errors.INVALID_REQUEST.code());
            return;
        } else {
            found = partition.read((log, highWatermark) -> log.offsetForTimestamp(timestamp, highWatermark));
        }
        response.setErrorCode(Errors.NONE.code());
        if (found != null) {
            response.setOffset(found.offset()).setTimestamp(found.timestamp());
            if (version >= 4) {
                response.setLeaderEpoch(PartitionLog.LEADER_EPOCH);
            }
        }
    }
}
