package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.log.RecordValidator;
import io.purgatory.demo.broker.server.ReplicaManager.PartitionAppend;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Answers {@code Produce} requests (every version kafka-clients has): validates them and hands
 * the appends to {@link ReplicaManager#appendRecords}, which answers {@code acks=0/1} at once and
 * parks {@code acks=-1} as a {@link DelayedProduce}. Topic names are validated as Kafka does
 * ({@link Topic#isValid}), each partition's records by {@link RecordValidator}; a produce's
 * partitions are keyed (a repeated one counts once).
 *
 * <p>Thread-safe: no state of its own.
 */
final class ProduceHandler {
    private final ReplicaManager replicaManager;

    ProduceHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    /**
     * A produce: topic names are validated as Kafka does ({@link Topic#isValid}), each partition's
     * records by {@link RecordValidator}. As in Kafka, which keys a request's partitions by topic and
     * partition, a partition listed more than once is appended once, with the data of its last
     * entry, and answered once; so the work is linear in the request's size. Each result carries the
     * entry it answers ({@link ProduceResult.Key}), and the response is built from the results.
     */
    void handle(ProduceRequest request, Responder responder) {
        Map<ProduceResult.Key, PartitionAppend> appends = new LinkedHashMap<>();
        for (TopicProduceData topicData : request.data().topicData()) {
            TopicKey topicKey = TopicKey.of(topicData);
            TopicRegistry.Topic topic = resolve(topicKey);
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                PartitionAppend append = partitionAppend(topicKey, topic, partitionData, request.version());
                appends.put(append.key(), append);
            }
        }
        if (request.acks() == 0) {
            responder.noResponse();
            replicaManager.appendRecords(request.acks(), request.timeout(), List.copyOf(appends.values()), results -> { });
            return;
        }
        DelayedProduce parked = replicaManager.appendRecords(request.acks(), request.timeout(), List.copyOf(appends.values()),
                results -> {
                    try {
                        responder.send(produceResponse(results));
                    } catch (RuntimeException e) {
                        responder.fail(e);
                    }
                });
        if (parked != null) {
            responder.awaits(parked::forceComplete);
        }
    }

    private TopicRegistry.Topic resolve(TopicKey key) {
        return key.byId() ? replicaManager.topics().topic(key.id()) : replicaManager.topics().topic(key.name());
    }

    private static PartitionAppend partitionAppend(TopicKey topicKey, TopicRegistry.Topic topic, PartitionProduceData partitionData,
                                                   short version) {
        // the topic's own name when the request's is equal: a parked produce keeps no copy of the name
        String name = topic != null && topic.name().equals(topicKey.name()) ? topic.name() : topicKey.name();
        ProduceResult.Key key = new ProduceResult.Key(name, topicKey.id(), partitionData.index());
        if (!topicKey.byId() && !Topic.isValid(topicKey.name())) {
            return PartitionAppend.refused(key, Errors.INVALID_TOPIC_EXCEPTION);
        }
        if (topic == null) {
            return PartitionAppend.refused(key, topicKey.byId() ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        Partition partition = topic.partition(partitionData.index());
        if (partition == null) {
            return PartitionAppend.refused(key, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        RecordValidator.Result verdict = RecordValidator.validate(partitionData.records(), version);
        if (verdict.error() != Errors.NONE) {
            return PartitionAppend.refused(key, verdict.error());
        }
        return PartitionAppend.of(key, partition, verdict.records() == 0 ? MemoryRecords.EMPTY : (MemoryRecords) partitionData.records());
    }

    /**
     * The produce response: each result under its key's topic (topics in the order they first
     * appear), its partitions in the order of the results.
     */
    private static ProduceResponse produceResponse(List<ProduceResult> results) {
        ProduceResponseData data = new ProduceResponseData();
        Map<List<Object>, TopicProduceResponse> byTopic = new LinkedHashMap<>();
        for (ProduceResult result : results) {
            ProduceResult.Key key = result.key();
            byTopic.computeIfAbsent(Arrays.asList(key.topic(), key.topicId()), t -> new TopicProduceResponse()
                            .setName(TopicNames.echoable(key.topic()))
                            .setTopicId(key.topicId()))
                    .partitionResponses().add(new PartitionProduceResponse()
                            .setIndex(key.partition())
                            .setErrorCode(result.error().code())
                            .setBaseOffset(result.error() == Errors.NONE ? result.baseOffset() : ProduceResult.NO_OFFSET));
        }
        byTopic.values().forEach(data.responses()::add);
        return new ProduceResponse(data);
    }

    /** A topic as a produce request names it: by id from v13, else by name. */
    private record TopicKey(String name, Uuid id) {
        static TopicKey of(TopicProduceData topicData) {
            return new TopicKey(topicData.name(), topicData.topicId());
        }

        boolean byId() {
            return id != null && !Uuid.ZERO_UUID.equals(id);
        }
    }
}
