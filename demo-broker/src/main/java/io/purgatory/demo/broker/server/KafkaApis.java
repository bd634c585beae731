package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.metrics.BrokerStats;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.clients.admin.EndpointType;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;

/**
 * Answers the requests the demo broker speaks: {@code ApiVersions}, {@code Metadata},
 * {@code DescribeCluster}, {@code InitProducerId} (so the Java producer's default idempotent mode
 * works: each call gets a fresh producer id; the partitions check its sequence numbers,
 * {@link io.purgatory.demo.broker.log.ProducerStates}), and hands the
 * others to their handlers: {@code Produce} ({@link ProduceHandler}), {@code Fetch}
 * ({@link FetchHandler}), {@code ListOffsets} ({@link ListOffsetsHandler}), {@code CreateTopics},
 * {@code CreatePartitions} and {@code DeleteTopics} ({@link TopicAdminHandler}),
 * {@code DescribeConfigs} and {@code IncrementalAlterConfigs} ({@link ConfigsHandler}) and
 * {@code DeleteRecords} ({@link DeleteRecordsHandler}), in every version kafka-clients supports.
 * With {@code BrokerConfig#autoCreateTopics()} on, a {@code Metadata} request that allows it
 * creates the valid unknown topics it names ({@code BrokerConfig#numPartitions()} partitions, every
 * replica), at most {@code BrokerConfig#maxTopicsPerRequest()} per request; they are described
 * ready at once. The classic group APIs go to {@link GroupApis}, in front of the
 * {@link GroupCoordinator}; the new consumer protocol's APIs ({@code ConsumerGroupHeartbeat},
 * {@code ConsumerGroupDescribe}) are not advertised, so clients use the classic protocol. A request
 * whose handling or response fails goes to {@link Responder#fail}.
 *
 * <p>A Metadata answer for all topics shares one description of them until a topic, a partition or
 * an ISR changes ({@link AllTopicsMetadata}).
 *
 * <p>Thread-safe: stateless apart from the atomic producer id counter and the shared description.
 */
public final class KafkaApis {
    public static final Set<ApiKeys> SUPPORTED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.INIT_PRODUCER_ID, ApiKeys.PRODUCE,
            ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT,
            ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE,
            ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_TOPICS,
            ApiKeys.DESCRIBE_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.DELETE_RECORDS, ApiKeys.DESCRIBE_CLUSTER);
    static final String CLUSTER_ID = "purgatory-demo-cluster";

    private final ReplicaManager replicaManager;
    private final ProduceHandler produceHandler;
    private final FetchHandler fetchHandler;
    private final ListOffsetsHandler listOffsetsHandler;
    private final GroupApis groupApis;
    private final TopicAdminHandler topicAdminHandler;
    private final ConfigsHandler configsHandler;
    private final DeleteRecordsHandler deleteRecordsHandler;
    private final AllTopicsMetadata allTopics;
    private final AtomicLong producerIds = new AtomicLong();

    public KafkaApis(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats) {
        this.replicaManager = replicaManager;
        this.produceHandler = new ProduceHandler(replicaManager);
        this.fetchHandler = new FetchHandler(replicaManager, stats);
        this.listOffsetsHandler = new ListOffsetsHandler(replicaManager);
        this.groupApis = new GroupApis(coordinator, coordinator.admin(), replicaManager);
        this.topicAdminHandler = new TopicAdminHandler(replicaManager, coordinator.admin());
        this.configsHandler = new ConfigsHandler(replicaManager);
        this.deleteRecordsHandler = new DeleteRecordsHandler(replicaManager);
        this.allTopics = new AllTopicsMetadata(replicaManager.topics());
    }

    /**
     * Handles one request; the response goes to {@code responder}, now or (for a parked produce or
     * fetch) later from another thread. An {@code acks=0} produce gets {@link Responder#noResponse()};
     * a failure to handle the request or build its response gets {@link Responder#fail}.
     *
     * @param advertisedHost host and port clients reach this broker on, for metadata
     * @param clientHost the client's address as Kafka shows it ("/127.0.0.1"), for group members
     */
    public void handle(RequestHeader header, AbstractRequest request, String advertisedHost, int advertisedPort, String clientHost,
                       Responder responder) {
        try {
            dispatch(header, request, advertisedHost, advertisedPort, clientHost, responder);
        } catch (RuntimeException e) {
            responder.fail(e);
        }
    }

    private void dispatch(RequestHeader header, AbstractRequest request, String advertisedHost, int advertisedPort, String clientHost,
                          Responder responder) {
        short version = header.apiVersion();
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
                produceHandler.handle((ProduceRequest) request, responder);
                break;
            case FETCH:
                fetchHandler.handle((FetchRequest) request, responder);
                break;
            case LIST_OFFSETS:
                responder.send(listOffsetsHandler.handle((ListOffsetsRequest) request));
                break;
            case FIND_COORDINATOR:
                responder.send(groupApis.findCoordinator((FindCoordinatorRequest) request, version, advertisedHost, advertisedPort));
                break;
            case JOIN_GROUP:
                groupApis.joinGroup((JoinGroupRequest) request, version, header.clientId(), clientHost, responder);
                break;
            case SYNC_GROUP:
                groupApis.syncGroup((SyncGroupRequest) request, responder);
                break;
            case HEARTBEAT:
                responder.send(groupApis.heartbeat((HeartbeatRequest) request));
                break;
            case LEAVE_GROUP:
                responder.send(groupApis.leaveGroup((LeaveGroupRequest) request, version));
                break;
            case OFFSET_COMMIT:
                responder.send(groupApis.offsetCommit((OffsetCommitRequest) request, version, header.clientId(), clientHost));
                break;
            case OFFSET_FETCH:
                responder.send(groupApis.offsetFetch((OffsetFetchRequest) request, version));
                break;
            case LIST_GROUPS:
                responder.send(groupApis.listGroups((ListGroupsRequest) request));
                break;
            case DESCRIBE_GROUPS:
                responder.send(groupApis.describeGroups((DescribeGroupsRequest) request, version));
                break;
            case DELETE_GROUPS:
                responder.send(groupApis.deleteGroups((DeleteGroupsRequest) request));
                break;
            case OFFSET_DELETE:
                responder.send(groupApis.offsetDelete((OffsetDeleteRequest) request));
                break;
            case CREATE_TOPICS:
                responder.send(topicAdminHandler.createTopics((CreateTopicsRequest) request));
                break;
            case CREATE_PARTITIONS:
                responder.send(topicAdminHandler.createPartitions((CreatePartitionsRequest) request));
                break;
            case DELETE_TOPICS:
                responder.send(topicAdminHandler.deleteTopics((DeleteTopicsRequest) request));
                break;
            case DESCRIBE_CONFIGS:
                responder.send(configsHandler.describeConfigs((DescribeConfigsRequest) request));
                break;
            case INCREMENTAL_ALTER_CONFIGS:
                responder.send(configsHandler.incrementalAlterConfigs((IncrementalAlterConfigsRequest) request));
                break;
            case DELETE_RECORDS:
                deleteRecordsHandler.handle((DeleteRecordsRequest) request, responder);
                break;
            case DESCRIBE_CLUSTER:
                responder.send(describeCluster((DescribeClusterRequest) request, advertisedHost, advertisedPort));
                break;
            default:
                throw new IllegalArgumentException("unsupported API " + header.apiKey());
        }
    }

    /** The answer to {@code ApiVersions}: the supported APIs and their version ranges. */
    public static ApiVersionsResponse apiVersions(Errors error) {
        ApiVersionsResponseData.ApiVersionCollection versions = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys api : SUPPORTED) {
            versions.add(ApiVersionsResponse.toApiVersion(api));
        }
        return new ApiVersionsResponse(new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(versions));
    }

    /** The answer to {@code DescribeCluster}: this broker, which is also the controller; no controller endpoints (Kafka's error). */
    private static DescribeClusterResponse describeCluster(DescribeClusterRequest request, String host, int port) {
        DescribeClusterResponseData data = new DescribeClusterResponseData()
                .setClusterId(CLUSTER_ID)
                .setControllerId(Partition.LEADER_ID)
                .setEndpointType(request.data().endpointType());
        if (request.data().endpointType() != EndpointType.BROKER.id()) {
            return new DescribeClusterResponse(data.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("This broker serves broker endpoints only."));
        }
        data.brokers().add(new DescribeClusterBroker().setBrokerId(Partition.LEADER_ID).setHost(host).setPort(port));
        return new DescribeClusterResponse(data);
    }

    private MetadataResponse metadata(MetadataRequest request, String host, int port) {
        MetadataResponseData data = new MetadataResponseData()
                .setClusterId(CLUSTER_ID)
                .setControllerId(Partition.LEADER_ID);
        data.brokers().add(new MetadataResponseBroker().setNodeId(Partition.LEADER_ID).setHost(host).setPort(port));
        List<MetadataRequestTopic> requested = request.data().topics();
        if (requested == null) {
            data.setTopics(allTopics.describeAll());
        } else {
            int autoCreated = 0;
            Set<Object> answered = new HashSet<>(); // a topic named again is answered once, as Kafka does
            for (MetadataRequestTopic wanted : requested) {
                if (!answered.add(wanted.name() != null ? wanted.name() : wanted.topicId())) {
                    continue;
                }
                TopicRegistry.Topic topic = wanted.name() != null ? replicaManager.topics().topic(wanted.name())
                        : replicaManager.topics().topic(wanted.topicId());
                if (topic == null && autoCreates(request, wanted.name()) && autoCreated++ < replicaManager.config().maxTopicsPerRequest()) {
                    replicaManager.topics().createTopic(wanted.name(), replicaManager.config().numPartitions(),
                            (short) (replicaManager.config().followers() + 1), Map.of(), false);
                    topic = replicaManager.topics().topic(wanted.name());
                }
                Errors error = wanted.name() == null ? Errors.UNKNOWN_TOPIC_ID
                        : Topic.isValid(wanted.name()) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_TOPIC_EXCEPTION;
                data.topics().add(topic != null ? AllTopicsMetadata.describe(topic) : new MetadataResponseTopic()
                        .setName(TopicNames.echoable(wanted.name()))
                        .setTopicId(wanted.topicId() != null ? wanted.topicId() : Uuid.ZERO_UUID)
                        .setErrorCode(error.code()));
            }
        }
        return new MetadataResponse(data, request.version());
    }

    /** Whether a metadata request creates the unknown topic it names: the broker allows it, the request too, and the name is valid. */
    private boolean autoCreates(MetadataRequest request, String name) {
        return replicaManager.config().autoCreateTopics() && request.data().allowAutoTopicCreation() && name != null && Topic.isValid(name);
    }


}
