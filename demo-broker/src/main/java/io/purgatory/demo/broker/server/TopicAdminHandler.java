package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupAdmin;
import io.purgatory.demo.broker.config.DynamicSetting;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

/**
 * Answers {@code CreateTopics}, {@code CreatePartitions} and {@code DeleteTopics} (every version
 * kafka-clients has), checking each request as Kafka's controller does ({@code ControllerApis},
 * {@code ReplicationControlManager}) before {@link TopicRegistry} changes anything:
 * <ul>
 *   <li>a name listed twice: {@code INVALID_REQUEST} "Duplicate topic name." (once per name);
 *   <li>a bad name: {@code INVALID_TOPIC_EXCEPTION} with {@link Topic#validate}'s message;
 *   <li>a partition count of 0 or below -1: {@code INVALID_PARTITIONS}; a replication factor of 0
 *       or below -1: {@code INVALID_REPLICATION_FACTOR}; one above the broker's replicas (the
 *       leader and its simulated followers): {@code INVALID_REPLICATION_FACTOR}, as when a
 *       cluster has too few brokers; -1 takes the broker's default ({@code --num-partitions}, and
 *       every replica);
 *   <li>a manual replica assignment: {@code INVALID_REPLICA_ASSIGNMENT} (this broker places
 *       replicas itself: it leads every partition);
 *   <li>a config that is not one of {@link DynamicSetting}'s topic configs, a null value, or a
 *       value out of range: {@code INVALID_CONFIG};
 *   <li>more topics than {@link BrokerConfig#maxTopicsPerRequest()}, or more new partitions than
 *       {@link BrokerConfig#maxPartitionsPerRequest()}: {@code POLICY_VIOLATION} for every topic,
 *       nothing created (Kafka's "Excessively large number of partitions per request.").
 * </ul>
 * Validate-only requests go through every check and change nothing. A deleted topic's committed
 * offsets leave every group at the delete ({@link GroupAdmin#topicDeleted}), as Kafka drops a
 * deleted partition's offsets.
 *
 * <p>Thread-safe: no state of its own; {@link TopicRegistry} serialises the changes.
 */
final class TopicAdminHandler {
    static final String TOO_MANY_PARTITIONS = "Excessively large number of partitions per request.";

    private final ReplicaManager replicaManager;
    private final GroupAdmin groups;
    private final BrokerConfig config;

    TopicAdminHandler(ReplicaManager replicaManager, GroupAdmin groups) {
        this.replicaManager = replicaManager;
        this.groups = groups;
        this.config = replicaManager.config();
    }

    private int defaultReplicationFactor() {
        return config.followers() + 1;
    }

    CreateTopicsResponse createTopics(CreateTopicsRequest request) {
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        List<CreatableTopic> topics = new ArrayList<>(request.data().topics());
        Set<String> duplicates = duplicates(topics.stream().map(CreatableTopic::name).toList());
        ApiError refusedAll = null;
        if (topics.size() > config.maxTopicsPerRequest()) {
            refusedAll = new ApiError(Errors.POLICY_VIOLATION, "A request may create at most " + config.maxTopicsPerRequest()
                    + " topics; this one names " + topics.size() + ".");
        } else if (newPartitions(topics) > config.maxPartitionsPerRequest()) {
            refusedAll = new ApiError(Errors.POLICY_VIOLATION, TOO_MANY_PARTITIONS);
        }
        Set<String> answered = new HashSet<>();
        for (CreatableTopic topic : topics) {
            if (!answered.add(topic.name())) {
                continue;
            }
            CreatableTopicResult result = new CreatableTopicResult().setName(TopicNames.echoable(topic.name()));
            ApiError error = refusedAll != null ? refusedAll
                    : duplicates.contains(topic.name()) ? new ApiError(Errors.INVALID_REQUEST, "Duplicate topic name.")
                    : create(topic, request.data().validateOnly(), result);
            result.setErrorCode(error.error().code()).setErrorMessage(error.message());
            response.topics().add(result);
        }
        return new CreateTopicsResponse(response);
    }

    /** Partitions a create request would add: its counts, the default for -1, none for invalid ones. */
    private long newPartitions(List<CreatableTopic> topics) {
        long total = 0;
        for (CreatableTopic topic : topics) {
            if (!topic.assignments().isEmpty()) {
                total += topic.assignments().size();
            } else if (topic.numPartitions() == -1) {
                total += config.numPartitions();
            } else if (topic.numPartitions() > 0) {
                total += topic.numPartitions();
            }
        }
        return total;
    }

    private ApiError create(CreatableTopic topic, boolean validateOnly, CreatableTopicResult result) {
        try {
            Topic.validate(topic.name());
        } catch (InvalidTopicException e) {
            return new ApiError(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
        if (!topic.assignments().isEmpty()) {
            return new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT,
                    "This broker places replicas itself (it leads every partition): give a partition count and a replication factor.");
        }
        if (topic.replicationFactor() < -1 || topic.replicationFactor() == 0) {
            return new ApiError(Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0, or -1 to use the default value.");
        }
        if (topic.numPartitions() < -1 || topic.numPartitions() == 0) {
            return new ApiError(Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.");
        }
        int partitions = topic.numPartitions() == -1 ? config.numPartitions() : topic.numPartitions();
        short replicationFactor = topic.replicationFactor() == -1 ? (short) defaultReplicationFactor() : topic.replicationFactor();
        if (replicationFactor > defaultReplicationFactor()) {
            return new ApiError(Errors.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition " + replicationFactor
                    + " time(s): The target replication factor of " + replicationFactor + " cannot be reached because only "
                    + defaultReplicationFactor() + " replica(s) are simulated (the leader and --replicas " + config.followers() + ").");
        }
        Map<DynamicSetting, String> configs = new EnumMap<>(DynamicSetting.class);
        List<String> nullConfigs = new ArrayList<>();
        for (CreatableTopicConfig entry : topic.configs()) {
            if (entry.value() == null) {
                nullConfigs.add(entry.name());
                continue;
            }
            ApiError invalid = ConfigsHandler.checkTopicConfig(entry.name(), entry.value());
            if (invalid != null) {
                return invalid;
            }
            configs.put(DynamicSetting.forTopicConfig(entry.name()), entry.value());
        }
        if (!nullConfigs.isEmpty()) {
            return new ApiError(Errors.INVALID_CONFIG, "Null value not supported for topic configs: " + String.join(",", nullConfigs));
        }
        TopicRegistry.CreateResult created = replicaManager.topics().createTopic(topic.name(), partitions, replicationFactor, configs, validateOnly);
        if (created.error().isSuccess()) {
            result.setTopicId(created.topicId())
                    .setNumPartitions(partitions)
                    .setReplicationFactor(replicationFactor)
                    .setTopicConfigErrorCode(Errors.NONE.code());
            for (DynamicSetting setting : DynamicSetting.values()) {
                if (setting.topicName() != null) {
                    DynamicConfigs.Value value = replicaManager.topics().dynamicConfigs().synonyms(setting, configs).get(0);
                    result.configs().add(new CreatableTopicConfigs().setName(setting.topicName()).setValue(value.value())
                            .setConfigSource(value.source().id()).setReadOnly(false).setIsSensitive(false));
                }
            }
        }
        return created.error();
    }

    CreatePartitionsResponse createPartitions(CreatePartitionsRequest request) {
        CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        List<CreatePartitionsTopic> topics = new ArrayList<>(request.data().topics());
        Set<String> duplicates = duplicates(topics.stream().map(CreatePartitionsTopic::name).toList());
        ApiError refusedAll = null;
        if (topics.size() > config.maxTopicsPerRequest()) {
            refusedAll = new ApiError(Errors.POLICY_VIOLATION, "A request may add partitions to at most " + config.maxTopicsPerRequest()
                    + " topics; this one names " + topics.size() + ".");
        } else {
            long added = 0;
            for (CreatePartitionsTopic topic : topics) {
                TopicRegistry.Topic existing = replicaManager.topics().topic(topic.name());
                added += existing == null ? 0 : Math.max(0, topic.count() - existing.partitions().size());
            }
            if (added > config.maxPartitionsPerRequest()) {
                refusedAll = new ApiError(Errors.POLICY_VIOLATION, TOO_MANY_PARTITIONS);
            }
        }
        Set<String> answered = new HashSet<>();
        for (CreatePartitionsTopic topic : topics) {
            if (!answered.add(topic.name())) {
                continue;
            }
            ApiError error = refusedAll != null ? refusedAll
                    : duplicates.contains(topic.name()) ? new ApiError(Errors.INVALID_REQUEST, "Duplicate topic name.")
                    : topic.assignments() != null && !topic.assignments().isEmpty() ? new ApiError(Errors.INVALID_REPLICA_ASSIGNMENT,
                            "This broker places replicas itself (it leads every partition): give the new partition count only.")
                    : replicaManager.topics().createPartitions(topic.name(), topic.count(), request.data().validateOnly());
            response.results().add(new CreatePartitionsTopicResult().setName(TopicNames.echoable(topic.name()))
                    .setErrorCode(error.error().code()).setErrorMessage(error.message()));
        }
        return new CreatePartitionsResponse(response);
    }

    /**
     * Deletes topics by name (v0 to v5, and v6 entries with a name) or by id (v6): an unknown name
     * gets {@code UNKNOWN_TOPIC_OR_PARTITION}, an unknown id {@code UNKNOWN_TOPIC_ID}, an entry with
     * both {@code INVALID_REQUEST}, a name or id listed twice {@code INVALID_REQUEST}.
     */
    DeleteTopicsResponse deleteTopics(DeleteTopicsRequest request) {
        short version = request.version();
        List<DeleteTopicState> topics = new ArrayList<>();
        if (version < 6) {
            request.data().topicNames().forEach(name -> topics.add(new DeleteTopicState().setName(name).setTopicId(Uuid.ZERO_UUID)));
        } else {
            topics.addAll(request.data().topics());
        }
        Set<Object> duplicates = duplicates(topics.stream().map(TopicAdminHandler::key).toList());
        ApiError refusedAll = topics.size() > config.maxTopicsPerRequest()
                ? new ApiError(Errors.POLICY_VIOLATION, "A request may delete at most " + config.maxTopicsPerRequest()
                        + " topics; this one names " + topics.size() + ".")
                : null;
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        Map<Object, DeletableTopicResult> results = new LinkedHashMap<>();
        for (DeleteTopicState topic : topics) {
            Object key = key(topic);
            if (results.containsKey(key)) {
                continue;
            }
            boolean byId = topic.name() == null;
            DeletableTopicResult result = new DeletableTopicResult().setName(TopicNames.echoable(topic.name())).setTopicId(topic.topicId());
            ApiError error;
            if (refusedAll != null) {
                error = refusedAll;
            } else if (topic.name() != null && !Uuid.ZERO_UUID.equals(topic.topicId())) {
                error = new ApiError(Errors.INVALID_REQUEST, "You may not specify both topic name and topic id.");
            } else if (duplicates.contains(key)) {
                error = new ApiError(Errors.INVALID_REQUEST, byId ? "Duplicate topic id." : "Duplicate topic name.");
            } else {
                TopicRegistry.Topic deleted = byId ? replicaManager.topics().deleteTopic(topic.topicId()) : replicaManager.topics().deleteTopic(topic.name());
                if (deleted != null) {
                    groups.topicDeleted(deleted.name());
                    result.setName(deleted.name()).setTopicId(deleted.id());
                    error = ApiError.NONE;
                } else {
                    error = byId ? new ApiError(Errors.UNKNOWN_TOPIC_ID) : new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            result.setErrorCode(error.error().code()).setErrorMessage(error.message());
            results.put(key, result);
        }
        results.values().forEach(response.responses()::add);
        return new DeleteTopicsResponse(response);
    }

    /** What a delete entry names: its topic id, or its name. */
    private static Object key(DeleteTopicState topic) {
        return topic.name() == null ? topic.topicId() : topic.name();
    }

    private static <T> Set<T> duplicates(List<T> keys) {
        Set<T> seen = new HashSet<>();
        Set<T> duplicates = new HashSet<>();
        for (T key : keys) {
            if (!seen.add(key)) {
                duplicates.add(key);
            }
        }
        return duplicates;
    }
}
