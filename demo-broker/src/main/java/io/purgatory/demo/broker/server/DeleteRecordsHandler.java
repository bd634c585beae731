package io.purgatory.demo.broker.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

/**
 * Answers {@code DeleteRecords} (v0 to v2) through {@link ReplicaManager#deleteRecords}, which
 * moves each partition's log start offset on the leader at once and answers when the low watermark
 * has reached it, or at the request's timeout: a {@link DelayedDeleteRecords} in the
 * {@code delete-records} purgatory. As in Kafka, a partition listed twice counts once (its last
 * offset), an unknown topic or partition gets {@code UNKNOWN_TOPIC_OR_PARTITION}, an offset below -1
 * or past the high watermark {@code OFFSET_OUT_OF_RANGE} (-1 means the high watermark).
 *
 * <p>Thread-safe: no state of its own.
 */
final class DeleteRecordsHandler {
    private final ReplicaManager replicaManager;

    DeleteRecordsHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    void handle(DeleteRecordsRequest request, Responder responder) {
        Map<TopicPartition, DelayedDeleteRecords.Request> partitions = new LinkedHashMap<>();
        for (DeleteRecordsTopic topicData : request.data().topics()) {
            TopicRegistry.Topic topic = replicaManager.topics().topic(topicData.name());
            for (DeleteRecordsPartition partitionData : topicData.partitions()) {
                partitions.put(new TopicPartition(String.valueOf(topicData.name()), partitionData.partitionIndex()),
                        new DelayedDeleteRecords.Request(topic != null ? topic.name() : topicData.name(), partitionData.partitionIndex(),
                                topic == null ? null : topic.partition(partitionData.partitionIndex()), partitionData.offset()));
            }
        }
        DelayedDeleteRecords parked = replicaManager.deleteRecords(request.data().timeoutMs(), new ArrayList<>(partitions.values()), results -> {
            try {
                responder.send(response(results));
            } catch (RuntimeException e) {
                responder.fail(e);
            }
        });
        if (parked != null) {
            responder.awaits(parked::forceComplete);
        }
    }

    /** The response: each result under its topic, topics and partitions in the order of the request. */
    private static DeleteRecordsResponse response(List<DelayedDeleteRecords.Result> results) {
        DeleteRecordsResponseData data = new DeleteRecordsResponseData();
        Map<String, DeleteRecordsTopicResult> byTopic = new LinkedHashMap<>();
        for (DelayedDeleteRecords.Result result : results) {
            String topic = TopicNames.echoable(result.request().topic());
            byTopic.computeIfAbsent(topic, name -> new DeleteRecordsTopicResult().setName(name))
                    .partitions().add(new DeleteRecordsPartitionResult()
                            .setPartitionIndex(result.request().partitionIndex())
                            .setErrorCode(result.error().code())
                            .setLowWatermark(result.lowWatermark()));
        }
        byTopic.values().forEach(data.topics()::add);
        return new DeleteRecordsResponse(data);
    }
}
