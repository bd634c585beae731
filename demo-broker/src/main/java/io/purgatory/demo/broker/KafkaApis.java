package io.purgatory.demo.broker;

import io.purgatory.DelayedOperation;
import io.purgatory.demo.broker.ReplicaManager.PartitionAppend;
import io.purgatory.demo.broker.ReplicaManager.Topic;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Answers the requests the demo broker speaks: {@code ApiVersions}, {@code Metadata},
 * {@code InitProducerId} (so the Java producer's default idempotent mode works: each call gets a
 * fresh producer id; sequence numbers are not checked) and {@code Produce}, in every version
 * kafka-clients supports. Topics are never created on demand.
 *
 * <p>Thread-safe: stateless apart from the atomic producer id counter.
 */
final class KafkaApis {
    static final Set<ApiKeys> SUPPORTED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.INIT_PRODUCER_ID, ApiKeys.PRODUCE);
    static final String CLUSTER_ID = "purgatory-demo-cluster";

    private final ReplicaManager replicaManager;
    private final AtomicLong producerIds = new AtomicLong();

    KafkaApis(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    /**
     * Handles one request; the response goes to {@code responder}, now or (for a parked produce)
     * later from another thread. An {@code acks=0} produce gets {@link Responder#noResponse()}.
     *
     * @param advertisedHost host and port clients reach this broker on, for metadata
     */
    void handle(RequestHeader header, AbstractRequest request, String advertisedHost, int advertisedPort, Responder responder) {
        switch (header.apiKey()) {
            case API_VERSIONS:
                responder.send(apiVersions(Errors.NONE));
                break;
            case METADATA:
                responder.send(metadata((MetadataRequest) request, advertisedHost, advertisedPort));
                break;
            case INIT_PRODUCER_ID:
                responder.send(new InitProducerIdResponse(new InitProducerIdResponseData()
                        .setProducerId(producerIds.getAndIncrement())
                        .setProducerEpoch((short) 0)));
                break;
            case PRODUCE:
                produce((ProduceRequest) request, responder);
                break;
            default:
                throw new IllegalArgumentException("unsupported API " + header.apiKey());
        }
    }

    /** The answer to {@code ApiVersions}: the supported APIs and their version ranges. */
    static ApiVersionsResponse apiVersions(Errors error) {
        final ApiVersionsResponseData.ApiVersionCollection versions = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys api : SUPPORTED) {
            versions.add(ApiVersionsResponse.toApiVersion(api));
        }
        return new ApiVersionsResponse(new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(versions));
    }

    private MetadataResponse metadata(MetadataRequest request, String host, int port) {
        final MetadataResponseData data = new MetadataResponseData()
                .setClusterId(CLUSTER_ID)
                .setControllerId(Partition.LEADER_ID);
        data.brokers().add(new MetadataResponseBroker().setNodeId(Partition.LEADER_ID).setHost(host).setPort(port));
        final List<MetadataRequestTopic> requested = request.data().topics();
        if (requested == null) {
            replicaManager.topics().forEach(topic -> data.topics().add(describe(topic)));
        } else {
            for (MetadataRequestTopic wanted : requested) {
                final Topic topic = wanted.name() != null ? replicaManager.topic(wanted.name()) : replicaManager.topic(wanted.topicId());
                data.topics().add(topic != null ? describe(topic) : new MetadataResponseTopic()
                        .setName(wanted.name())
                        .setTopicId(wanted.topicId() != null ? wanted.topicId() : Uuid.ZERO_UUID)
                        .setErrorCode((wanted.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID).code()));
            }
        }
        return new MetadataResponse(data, request.version());
    }

    private static MetadataResponseTopic describe(Topic topic) {
        final List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (Partition partition : topic.partitions()) {
            partitions.add(new MetadataResponsePartition()
                    .setPartitionIndex(partition.topicPartition().partition())
                    .setLeaderId(Partition.LEADER_ID)
                    .setLeaderEpoch(0)
                    .setReplicaNodes(partition.replicas())
                    .setIsrNodes(partition.isr()));
        }
        return new MetadataResponseTopic().setName(topic.name()).setTopicId(topic.id()).setPartitions(partitions);
    }

    private void produce(ProduceRequest request, Responder responder) {
        final List<PartitionAppend> appends = new ArrayList<>();
        for (TopicProduceData topicData : request.data().topicData()) {
            final Topic topic = resolve(topicData);
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                appends.add(partitionAppend(topic, topicData, partitionData, request.version()));
            }
        }
        request.clearPartitionRecords(); // counted: a parked produce keeps no payload alive
        if (request.acks() == 0) {
            responder.noResponse();
            replicaManager.appendRecords(request.acks(), request.timeout(), appends, results -> { });
            return;
        }
        final DelayedProduce parked = replicaManager.appendRecords(request.acks(), request.timeout(), appends,
                results -> responder.send(produceResponse(results)));
        if (parked != null) {
            responder.awaits(parked);
        }
    }

    private Topic resolve(TopicProduceData topicData) {
        final Uuid id = topicData.topicId();
        return id != null && !Uuid.ZERO_UUID.equals(id) ? replicaManager.topic(id) : replicaManager.topic(topicData.name());
    }

    private static PartitionAppend partitionAppend(Topic topic, TopicProduceData topicData, PartitionProduceData partitionData,
                                                   short version) {
        // the topic's own name when the request's is equal: a parked produce keeps no copy of the name
        final String name = topic != null && topic.name().equals(topicData.name()) ? topic.name() : topicData.name();
        final ProduceResult.Key key = new ProduceResult.Key(name, topicData.topicId(), partitionData.index());
        if (topic == null) {
            final boolean byId = topicData.topicId() != null && !Uuid.ZERO_UUID.equals(topicData.topicId());
            return PartitionAppend.refused(key, byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final Partition partition = topic.partition(partitionData.index());
        if (partition == null) {
            return PartitionAppend.refused(key, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final int records = countRecords(partitionData.records(), version);
        return records < 0 ? PartitionAppend.refused(key, Errors.CORRUPT_MESSAGE) : PartitionAppend.of(key, partition, records);
    }

    /** Counts the records of a partition's batches after validating them; -1 if they are corrupt. */
    private static int countRecords(BaseRecords records, short version) {
        if (!(records instanceof MemoryRecords)) {
            return records == null ? 0 : -1;
        }
        try {
            ProduceRequest.validateRecords(version, records);
            int count = 0;
            for (MutableRecordBatch batch : ((MemoryRecords) records).batches()) {
                batch.ensureValid();
                final Integer batchCount = batch.countOrNull();
                count += batchCount != null ? batchCount : (int) (batch.lastOffset() - batch.baseOffset() + 1);
            }
            return count;
        } catch (InvalidRecordException | CorruptRecordException e) {
            return -1;
        }
    }

    /**
     * The produce response: each result under its key's topic (topics in the order they first
     * appear), its partitions in the order of the results.
     */
    private static ProduceResponse produceResponse(List<ProduceResult> results) {
        final ProduceResponseData data = new ProduceResponseData();
        final Map<List<Object>, TopicProduceResponse> byTopic = new LinkedHashMap<>();
        for (ProduceResult result : results) {
            final ProduceResult.Key key = result.key();
            byTopic.computeIfAbsent(Arrays.asList(key.topic(), key.topicId()), t -> new TopicProduceResponse()
                            .setName(key.topic())
                            .setTopicId(key.topicId()))
                    .partitionResponses().add(new PartitionProduceResponse()
                            .setIndex(key.partition())
                            .setErrorCode(result.error().code())
                            .setBaseOffset(result.error() == Errors.NONE ? result.baseOffset() : ProduceResult.NO_OFFSET));
        }
        byTopic.values().forEach(data.responses()::add);
        return new ProduceResponse(data);
    }

    /** Where a request's response goes. Implementations are thread-safe. */
    interface Responder {
        /** Sends the response; called once, from any thread. */
        void send(AbstractResponse response);

        /** The request gets no response ({@code acks=0}). */
        void noResponse();

        /**
         * The response waits for {@code operation}, a parked produce: if the connection closes
         * first, the responder completes it at once (its response goes nowhere), so the purgatory
         * does not hold it until its timeout. Called on the thread handling the request.
         */
        void awaits(DelayedOperation operation);
    }
}
