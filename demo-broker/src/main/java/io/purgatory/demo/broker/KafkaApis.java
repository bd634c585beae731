package io.purgatory.demo.broker;

import io.purgatory.DelayedOperation;
import io.purgatory.demo.broker.ReplicaManager.PartitionAppend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
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
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Answers the requests the demo broker speaks: {@code ApiVersions}, {@code Metadata},
 * {@code InitProducerId} (so the Java producer's default idempotent mode works: each call gets a
 * fresh producer id; sequence numbers are not checked), {@code Produce}, {@code Fetch}
 * ({@link FetchHandler}) and {@code ListOffsets} ({@link ListOffsetsHandler}), in every version
 * kafka-clients supports. Topics are never created on demand. No group APIs: consumers
 * {@code assign()} partitions. Topic names are validated as Kafka does, a produce's partitions are
 * keyed (a repeated one counts once) and their records checked by {@link RecordValidator}; a
 * response that cannot be built goes to {@link Responder#fail}.
 *
 * <p>Thread-safe: stateless apart from the atomic producer id counter.
 */
final class KafkaApis {
    static final Set<ApiKeys> SUPPORTED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.INIT_PRODUCER_ID, ApiKeys.PRODUCE,
            ApiKeys.FETCH, ApiKeys.LIST_OFFSETS);
    static final String CLUSTER_ID = "purgatory-demo-cluster";

    private final ReplicaManager replicaManager;
    private final FetchHandler fetchHandler;
    private final ListOffsetsHandler listOffsetsHandler;
    private final AtomicLong producerIds = new AtomicLong();

    KafkaApis(ReplicaManager replicaManager, BrokerStats stats) {
        this.replicaManager = replicaManager;
        this.fetchHandler = new FetchHandler(replicaManager, stats);
        this.listOffsetsHandler = new ListOffsetsHandler(replicaManager);
    }

    /**
     * Handles one request; the response goes to {@code responder}, now or (for a parked produce or
     * fetch) later from another thread. An {@code acks=0} produce gets {@link Responder#noResponse()};
     * a failure to handle the request or build its response gets {@link Responder#fail}.
     *
     * @param advertisedHost host and port clients reach this broker on, for metadata
     */
    void handle(RequestHeader header, AbstractRequest request, String advertisedHost, int advertisedPort, Responder responder) {
        try {
            dispatch(header, request, advertisedHost, advertisedPort, responder);
        } catch (RuntimeException e) {
            responder.fail(e);
        }
    }

    private void dispatch(RequestHeader header, AbstractRequest request, String advertisedHost, int advertisedPort, Responder responder) {
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
            case FETCH:
                fetchHandler.handle((FetchRequest) request, responder);
                break;
            case LIST_OFFSETS:
                responder.send(listOffsetsHandler.handle((ListOffsetsRequest) request));
                break;
            default:
                throw new IllegalArgumentException("unsupported API " + header.apiKey());
        }
    }

    /** The answer to {@code ApiVersions}: the supported APIs and their version ranges. */
    static ApiVersionsResponse apiVersions(Errors error) {
        ApiVersionsResponseData.ApiVersionCollection versions = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys api : SUPPORTED) {
            versions.add(ApiVersionsResponse.toApiVersion(api));
        }
        return new ApiVersionsResponse(new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(versions));
    }

    private MetadataResponse metadata(MetadataRequest request, String host, int port) {
        MetadataResponseData data = new MetadataResponseData()
                .setClusterId(CLUSTER_ID)
                .setControllerId(Partition.LEADER_ID);
        data.brokers().add(new MetadataResponseBroker().setNodeId(Partition.LEADER_ID).setHost(host).setPort(port));
        List<MetadataRequestTopic> requested = request.data().topics();
        if (requested == null) {
            replicaManager.topics().forEach(topic -> data.topics().add(describe(topic)));
        } else {
            for (MetadataRequestTopic wanted : requested) {
                ReplicaManager.Topic topic = wanted.name() != null ? replicaManager.topic(wanted.name()) : replicaManager.topic(wanted.topicId());
                Errors error = wanted.name() == null ? Errors.UNKNOWN_TOPIC_ID
                        : Topic.isValid(wanted.name()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
                data.topics().add(topic != null ? describe(topic) : new MetadataResponseTopic()
                        .setName(echoable(wanted.name()))
                        .setTopicId(wanted.topicId() != null ? wanted.topicId() : Uuid.ZERO_UUID)
                        .setErrorCode(error.code()));
            }
        }
        return new MetadataResponse(data, request.version());
    }

    private static MetadataResponseTopic describe(ReplicaManager.Topic topic) {
        List<MetadataResponsePartition> partitions = new ArrayList<>();
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

    /**
     * A produce: topic names are validated as Kafka does ({@link Topic#isValid}), each partition's
     * records by {@link RecordValidator}. As in Kafka, which keys a request's partitions by topic and
     * partition, a partition listed more than once is appended once, with the data of its last
     * entry, and answered once; so the work is linear in the request's size. Each result carries the
     * entry it answers ({@link ProduceResult.Key}), and the response is built from the results.
     */
    private void produce(ProduceRequest request, Responder responder) {
        Map<ProduceResult.Key, PartitionAppend> appends = new LinkedHashMap<>();
        for (TopicProduceData topicData : request.data().topicData()) {
            TopicKey topicKey = TopicKey.of(topicData);
            ReplicaManager.Topic topic = resolve(topicKey);
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
            responder.awaits(parked);
        }
    }

    private ReplicaManager.Topic resolve(TopicKey key) {
        return key.byId() ? replicaManager.topic(key.id()) : replicaManager.topic(key.name());
    }

    private static PartitionAppend partitionAppend(TopicKey topicKey, ReplicaManager.Topic topic, PartitionProduceData partitionData,
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
                            .setName(echoable(key.topic()))
                            .setTopicId(key.topicId()))
                    .partitionResponses().add(new PartitionProduceResponse()
                            .setIndex(key.partition())
                            .setErrorCode(result.error().code())
                            .setBaseOffset(result.error() == Errors.NONE ? result.baseOffset() : ProduceResult.NO_OFFSET));
        }
        byTopic.values().forEach(data.responses()::add);
        return new ProduceResponse(data);
    }

    /**
     * A topic name as a response can carry it: unchanged if it fits a protocol string (32,767 bytes
     * of UTF-8), else its longest prefix that does. A name that does not fit is invalid anyway, but
     * its answer must still be serializable.
     */
    private static String echoable(String name) {
        if (name == null || name.length() <= Short.MAX_VALUE / 3) { // at most 3 UTF-8 bytes per char
            return name;
        }
        int bytes = 0;
        int end = 0;
        while (end < name.length()) {
            int codePoint = name.codePointAt(end);
            int length = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + length > Short.MAX_VALUE) {
                break;
            }
            bytes += length;
            end += Character.charCount(codePoint);
        }
        return name.substring(0, end);
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


    /** Where a request's response goes. Implementations are thread-safe. */
    interface Responder {
        /** Sends the response; called once, from any thread. */
        void send(AbstractResponse response);

        /** The request gets no response ({@code acks=0}). */
        void noResponse();

        /**
         * The response could not be built: logs {@code cause} once and closes the connection after
         * the responses before this one are written. Called at most once, instead of the others.
         */
        void fail(RuntimeException cause);

        /**
         * The response waits for {@code operation}, a parked produce: if the connection closes
         * first, the responder completes it at once (its response goes nowhere), so the purgatory
         * does not hold it until its timeout. Called on the thread handling the request.
         */
        void awaits(DelayedOperation operation);
    }
}
