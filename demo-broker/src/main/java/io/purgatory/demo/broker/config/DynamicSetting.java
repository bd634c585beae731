package io.purgatory.demo.broker.config;

import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings that can change while the broker runs ({@code IncrementalAlterConfigs}), each
 * defined once: its topic config name (null for a broker-only setting), its broker config name,
 * its type and valid range (checked with Kafka's {@link ConfigDef}), its documentation, and where
 * the broker's static value comes from. The names are Kafka's, so {@code kafka-configs} and
 * {@code kafka-topics --config} use them as with a real broker.
 *
 * <p>Thread-safe: immutable.
 */
public enum DynamicSetting {
    MIN_INSYNC_REPLICAS("min.insync.replicas", "min.insync.replicas", Type.INT, Range.atLeast(1),
            "The fewest in-sync replicas, leader included, an acks=-1 produce needs: below it, a produce is refused with "
                    + "NOT_ENOUGH_REPLICAS, and one already appended is answered NOT_ENOUGH_REPLICAS_AFTER_APPEND.",
            config -> config.minInsyncReplicas()),
    RETENTION_BYTES("retention.bytes", "log.retention.bytes", Type.LONG, Range.atLeast(-1),
            "Bytes of record batches each partition keeps; the oldest batches beyond it are dropped (the newest always stays). "
                    + "-1: no limit.",
            config -> config.retentionBytes()),
    MAX_MESSAGE_BYTES("max.message.bytes", "message.max.bytes", Type.INT, Range.atLeast(0),
            "The largest record batch a produce may append; a larger one is refused with MESSAGE_TOO_LARGE.",
            config -> config.maxMessageBytes()),
    REPLICA_LAG_TIME_MAX_MS(null, "replica.lag.time.max.ms", Type.LONG, Range.atLeast(1),
            "A follower that has not caught up with the leader for longer than this leaves the ISR.",
            config -> config.replicaLagTimeMaxMs());

    private final String topicName;
    private final String brokerName;
    private final Type type;
    private final ConfigDef.Validator validator;
    private final String documentation;
    private final Function<BrokerConfig, Object> staticValue;

    DynamicSetting(String topicName, String brokerName, Type type, ConfigDef.Validator validator, String documentation,
                   Function<BrokerConfig, Object> staticValue) {
        this.topicName = topicName;
        this.brokerName = brokerName;
        this.type = type;
        this.validator = validator;
        this.documentation = documentation;
        this.staticValue = staticValue;
    }

    /** The topic config's name, or null when it is a broker setting only. */
    public String topicName() {
        return topicName;
    }

    public String brokerName() {
        return brokerName;
    }

    public Type type() {
        return type;
    }

    public String documentation() {
        return documentation;
    }

    /** The value the broker started with, as a config string. */
    public String staticValue(BrokerConfig config) {
        return String.valueOf(staticValue.apply(config));
    }

    /**
     * Checks a value as Kafka's {@link ConfigDef} does: it parses as the type and lies in range.
     *
     * @return the parsed value
     * @throws ConfigException with Kafka's message when it does not
     */
    public Object parse(String value) {
        String name = topicName != null ? topicName : brokerName;
        Object parsed = ConfigDef.parseType(name, value, type);
        validator.ensureValid(name, parsed);
        return parsed;
    }

    /** The setting a topic config name names, or null. */
    public static DynamicSetting forTopicConfig(String name) {
        return TOPIC_NAMES.get(name);
    }

    /** The setting a broker config name names, or null. */
    public static DynamicSetting forBrokerConfig(String name) {
        return BROKER_NAMES.get(name);
    }

    private static final Map<String, DynamicSetting> TOPIC_NAMES = Map.of(
            MIN_INSYNC_REPLICAS.topicName, MIN_INSYNC_REPLICAS,
            RETENTION_BYTES.topicName, RETENTION_BYTES,
            MAX_MESSAGE_BYTES.topicName, MAX_MESSAGE_BYTES);
    private static final Map<String, DynamicSetting> BROKER_NAMES = Map.of(
            MIN_INSYNC_REPLICAS.brokerName, MIN_INSYNC_REPLICAS,
            RETENTION_BYTES.brokerName, RETENTION_BYTES,
            MAX_MESSAGE_BYTES.brokerName, MAX_MESSAGE_BYTES,
            REPLICA_LAG_TIME_MAX_MS.brokerName, REPLICA_LAG_TIME_MAX_MS);
}
