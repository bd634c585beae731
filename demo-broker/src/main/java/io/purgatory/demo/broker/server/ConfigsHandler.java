package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.DynamicSetting;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * Answers {@code DescribeConfigs} and {@code IncrementalAlterConfigs} (every version kafka-clients
 * has) for the settings this broker can change while it runs ({@link DynamicSetting}): the topic
 * configs {@code min.insync.replicas}, {@code retention.bytes} and {@code max.message.bytes}, and
 * the broker configs {@code min.insync.replicas}, {@code log.retention.bytes},
 * {@code message.max.bytes} and {@code replica.lag.time.max.ms} (for broker {@code 0}, this one, or
 * the cluster default, named by the empty string, as {@code kafka-configs --entity-default}).
 *
 * <p>Describing: a topic's configs each with its value and source (the topic's own,
 * {@code TOPIC_CONFIG}; else the broker's dynamic, default or static value) and, when asked, their
 * synonyms, types and documentation. Errors as Kafka's: an unknown topic
 * {@code UNKNOWN_TOPIC_OR_PARTITION}, a bad topic name {@code INVALID_TOPIC_EXCEPTION}, a broker
 * other than 0 or a resource type other than topic and broker {@code INVALID_REQUEST}.
 *
 * <p>Altering: {@code SET} and {@code DELETE} (back to the broker's value); {@code APPEND} and
 * {@code SUBTRACT} are for list configs, which these are not ({@code INVALID_CONFIG}). A config not
 * listed above or a value out of range is {@code INVALID_CONFIG}, a key given twice in one resource
 * or a resource given twice {@code INVALID_REQUEST}; a resource with any error changes nothing.
 * {@code validate_only} checks and changes nothing. A change takes effect at once, and a changed
 * {@code min.insync.replicas} re-checks the produces parked on the topic (see
 * {@link TopicRegistry#alterTopicConfigs}).
 *
 * <p>Thread-safe: no state of its own; {@link TopicRegistry} serialises the changes.
 */
final class ConfigsHandler {
    private static final String BROKER_ID = String.valueOf(Partition.LEADER_ID);
    private static final String SUPPORTED_TOPIC_CONFIGS = Arrays.stream(DynamicSetting.values())
            .filter(s -> s.topicName() != null).map(DynamicSetting::topicName).collect(Collectors.joining(", "));
    private static final String SUPPORTED_BROKER_CONFIGS = Arrays.stream(DynamicSetting.values())
            .map(DynamicSetting::brokerName).collect(Collectors.joining(", "));

    private final ReplicaManager replicaManager;

    ConfigsHandler(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    /** Why a topic config cannot be set to {@code value}, or null when it can. */
    static ApiError checkTopicConfig(String name, String value) {
        DynamicSetting setting = DynamicSetting.forTopicConfig(name);
        if (setting == null) {
            return new ApiError(Errors.INVALID_CONFIG, "Unknown topic config name: " + name + " (this broker has " + SUPPORTED_TOPIC_CONFIGS + ")");
        }
        return checkValue(setting, value);
    }

    private static ApiError checkValue(DynamicSetting setting, String value) {
        try {
            setting.parse(value);
            return null;
        } catch (ConfigException e) {
            return new ApiError(Errors.INVALID_CONFIG, e.getMessage());
        }
    }

    DescribeConfigsResponse describeConfigs(DescribeConfigsRequest request) {
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        boolean synonyms = request.data().includeSynonyms();
        boolean documentation = request.data().includeDocumentation();
        for (DescribeConfigsResource resource : request.data().resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult()
                    .setResourceType(resource.resourceType())
                    .setResourceName(TopicNames.echoable(resource.resourceName()));
            Set<String> keys = resource.configurationKeys() == null ? null : new HashSet<>(resource.configurationKeys());
            ApiError error = describe(resource, keys, synonyms, documentation, result.configs());
            result.setErrorCode(error.error().code()).setErrorMessage(error.message());
            if (error.isFailure()) {
                result.configs().clear();
            }
            response.results().add(result);
        }
        return new DescribeConfigsResponse(response);
    }

    private ApiError describe(DescribeConfigsResource resource, Set<String> keys, boolean synonyms, boolean documentation,
                              List<DescribeConfigsResourceResult> into) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        DynamicConfigs configs = replicaManager.topics().dynamicConfigs();
        if (type == ConfigResource.Type.TOPIC) {
            try {
                Topic.validate(resource.resourceName());
            } catch (InvalidTopicException e) {
                return new ApiError(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
            }
            TopicRegistry.Topic topic = replicaManager.topics().topic(resource.resourceName());
            if (topic == null) {
                return new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + resource.resourceName() + "' does not exist.");
            }
            for (DynamicSetting setting : DynamicSetting.values()) {
                if (setting.topicName() != null && (keys == null || keys.contains(setting.topicName()))) {
                    into.add(entry(setting, setting.topicName(), configs.synonyms(setting, topic.configs()), synonyms, documentation));
                }
            }
            return ApiError.NONE;
        }
        if (type == ConfigResource.Type.BROKER) {
            ApiError invalid = checkBroker(resource.resourceName());
            if (invalid != null) {
                return invalid;
            }
            boolean clusterDefault = DynamicConfigs.DEFAULT_BROKER.equals(resource.resourceName());
            for (DynamicSetting setting : DynamicSetting.values()) {
                if (keys != null && !keys.contains(setting.brokerName())) {
                    continue;
                }
                List<DynamicConfigs.Value> values = configs.synonyms(setting, Map.of());
                if (clusterDefault) { // Kafka shows only what is set as the cluster default
                    values = values.stream().filter(v -> v.source() == DescribeConfigsResponse.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG).toList();
                    if (values.isEmpty()) {
                        continue;
                    }
                }
                into.add(entry(setting, setting.brokerName(), values, synonyms, documentation));
            }
            return ApiError.NONE;
        }
        return new ApiError(Errors.INVALID_REQUEST, "This broker has topic and broker configs only, not " + type + ".");
    }

    private static ApiError checkBroker(String name) {
        return BROKER_ID.equals(name) || DynamicConfigs.DEFAULT_BROKER.equals(name) ? null
                : new ApiError(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + BROKER_ID + " or empty string, but received " + name);
    }

    /** One config as described: its first value and source, the rest as synonyms (all of them, the first included, as Kafka lists them). */
    private static DescribeConfigsResourceResult entry(DynamicSetting setting, String name, List<DynamicConfigs.Value> values,
                                                       boolean withSynonyms, boolean withDocumentation) {
        DynamicConfigs.Value effective = values.get(0);
        DescribeConfigsResourceResult entry = new DescribeConfigsResourceResult()
                .setName(name)
                .setValue(effective.value())
                .setConfigSource(effective.source().id())
                .setReadOnly(false)
                .setIsSensitive(false)
                .setConfigType((setting.type() == ConfigDef.Type.INT ? ConfigType.INT : ConfigType.LONG).id())
                .setDocumentation(withDocumentation ? setting.documentation() : null);
        if (withSynonyms) {
            for (DynamicConfigs.Value value : values) {
                String synonym = value.source() == DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG ? setting.topicName() : setting.brokerName();
                entry.synonyms().add(new DescribeConfigsSynonym().setName(synonym).setValue(value.value()).setSource(value.source().id()));
            }
        }
        return entry;
    }

    IncrementalAlterConfigsResponse incrementalAlterConfigs(IncrementalAlterConfigsRequest request) {
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        List<AlterConfigsResource> resources = new ArrayList<>(request.data().resources());
        Set<List<Object>> seen = new HashSet<>();
        Set<List<Object>> duplicates = new HashSet<>();
        for (AlterConfigsResource resource : resources) {
            List<Object> key = List.of(resource.resourceType(), String.valueOf(resource.resourceName()));
            if (!seen.add(key)) {
                duplicates.add(key);
            }
        }
        for (AlterConfigsResource resource : resources) {
            boolean duplicate = duplicates.contains(List.of(resource.resourceType(), String.valueOf(resource.resourceName())));
            ApiError error = duplicate ? new ApiError(Errors.INVALID_REQUEST, "Duplicate resource.") : alter(resource, request.data().validateOnly());
            response.responses().add(new AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType())
                    .setResourceName(TopicNames.echoable(resource.resourceName()))
                    .setErrorCode(error.error().code())
                    .setErrorMessage(error.message()));
        }
        return new IncrementalAlterConfigsResponse(response);
    }

    private ApiError alter(AlterConfigsResource resource, boolean validateOnly) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        boolean topic = type == ConfigResource.Type.TOPIC;
        if (topic) {
            try {
                Topic.validate(resource.resourceName());
            } catch (InvalidTopicException e) {
                return new ApiError(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
            }
        } else if (type == ConfigResource.Type.BROKER) {
            ApiError invalid = checkBroker(resource.resourceName());
            if (invalid != null) {
                return invalid;
            }
        } else {
            return new ApiError(Errors.INVALID_REQUEST, "This broker has topic and broker configs only, not " + type + ".");
        }
        Map<DynamicSetting, String> changes = new EnumMap<>(DynamicSetting.class);
        Set<String> names = new HashSet<>();
        for (AlterableConfig config : resource.configs()) {
            if (!names.add(config.name())) {
                return new ApiError(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
            }
            DynamicSetting setting = topic ? DynamicSetting.forTopicConfig(config.name()) : DynamicSetting.forBrokerConfig(config.name());
            if (setting == null) {
                return new ApiError(Errors.INVALID_CONFIG, topic
                        ? "Unknown topic config name: " + config.name() + " (this broker has " + SUPPORTED_TOPIC_CONFIGS + ")"
                        : "Unknown or read-only broker config: " + config.name() + " (this broker can change " + SUPPORTED_BROKER_CONFIGS + ")");
            }
            AlterConfigOp.OpType op = AlterConfigOp.OpType.forId(config.configOperation());
            if (op == AlterConfigOp.OpType.SET) {
                if (config.value() == null) {
                    return new ApiError(Errors.INVALID_CONFIG, "Null value not supported for config: " + config.name());
                }
                ApiError invalid = checkValue(setting, config.value());
                if (invalid != null) {
                    return invalid;
                }
                changes.put(setting, config.value());
            } else if (op == AlterConfigOp.OpType.DELETE) {
                changes.put(setting, null);
            } else {
                return new ApiError(Errors.INVALID_CONFIG, op == null ? "Unknown config operation " + config.configOperation()
                        : "Config value append or subtract is not allowed for config key: " + config.name() + " (not a list)");
            }
        }
        if (topic) {
            return replicaManager.topics().alterTopicConfigs(resource.resourceName(), changes, validateOnly);
        }
        if (!validateOnly) {
            replicaManager.topics().alterBrokerConfigs(resource.resourceName(), changes);
        }
        return ApiError.NONE;
    }
}
