package io.purgatory.demo.broker.config;

import java.util.Arrays;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The settings that can change while the broker runs ({@code IncrementalAlterConfigs}): the
 * {@link Setting.Scope#DYNAMIC dynamic} ones of {@link BrokerSettings}, from which each takes its
 * Kafka broker and topic config names, its type, range and documentation, and its static value.
 * The names are Kafka's, so {@code kafka-configs} and {@code kafka-topics --config} use them as
 * with a real broker. (An enum, so the request handlers can key maps by it.)
 *
 * <p>Thread-safe: immutable.
 */
public enum DynamicSetting {
    MIN_INSYNC_REPLICAS(BrokerSettings.MIN_INSYNC_REPLICAS),
    RETENTION_BYTES(BrokerSettings.RETENTION_BYTES),
    MAX_MESSAGE_BYTES(BrokerSettings.MAX_MESSAGE_BYTES),
    REPLICA_LAG_TIME_MAX_MS(BrokerSettings.REPLICA_LAG_TIME_MAX_MS);

    private final Setting<?> setting;

    DynamicSetting(Setting<?> setting) {
        if (setting.scope() != Setting.Scope.DYNAMIC) {
            throw new IllegalArgumentException(setting + " is not dynamic");
        }
        this.setting = setting;
    }

    /** The topic config's name, or null when it is a broker setting only. */
    public String topicName() {
        return setting.topicConfigName();
    }

    public String brokerName() {
        return setting.brokerConfigName();
    }

    public ConfigDef.Type type() {
        return setting.kafkaType();
    }

    public String documentation() {
        return setting.documentation();
    }

    /** The value the broker started with, as a config string. */
    public String staticValue(BrokerConfig config) {
        return String.valueOf(config.get(setting));
    }

    /**
     * Checks a value as Kafka's {@link ConfigDef} does: it parses as the type and lies in the
     * setting's range.
     *
     * @return the parsed value
     * @throws org.apache.kafka.common.config.ConfigException with Kafka's message when it does not
     */
    public Object parse(String value) {
        String name = topicName() != null ? topicName() : brokerName();
        Object parsed = ConfigDef.parseType(name, value, type());
        ConfigDef.Range.between(setting.min(), setting.max()).ensureValid(name, parsed);
        return parsed;
    }

    /** The setting a topic config name names, or null. */
    public static DynamicSetting forTopicConfig(String name) {
        return Arrays.stream(values()).filter(s -> name.equals(s.topicName())).findFirst().orElse(null);
    }

    /** The setting a broker config name names, or null. */
    public static DynamicSetting forBrokerConfig(String name) {
        return Arrays.stream(values()).filter(s -> name.equals(s.brokerName())).findFirst().orElse(null);
    }
}
