package io.purgatory.demo.broker.config;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings that can change while the broker runs ({@code IncrementalAlterConfigs}), each
 * defined once: its topic config name (null for a broker-only setting), its broker config name,
 * its type and least value (checked with Kafka's {@link ConfigDef}), its documentation, and the
 * {@link BrokerConfig} setting its static value comes from. The names are Kafka's, so {@code kafka-configs} and
 * {@code kafka-topics --config} use them as with a real broker.
 *
 * <p>Thread-safe: immutable.
 */
public enum DynamicSetting {
    MIN_INSYNC_REPLICAS("min.insync.replicas", "min.insync.replicas", ConfigDef.Type.INT, 1,
            "The fewest in-sync replicas, leader included, an acks=-1 produce needs: below it, a produce is refused with "
                    + "NOT_ENOUGH_REPLICAS, and one already appended is answered NOT_ENOUGH_REPLICAS_AFTER_APPEND."),
    RETENTION_BYTES("retention.bytes", "log.retention.bytes", ConfigDef.Type.LONG, -1,
            "Bytes of record batches each partition keeps; the oldest batches beyond it are dropped (the newest always stays). "
                    + "-1: no limit."),
    MAX_MESSAGE_BYTES("max.message.bytes", "message.max.bytes", ConfigDef.Type.INT, 0,
            "The largest record batch a produce may append; a larger one is refused with MESSAGE_TOO_LARGE."),
    REPLICA_LAG_TIME_MAX_MS(null, "replica.lag.time.max.ms", ConfigDef.Type.LONG, 1,
            "A follower that has not caught up with the leader for longer than this leaves the ISR.");

    private final String topicName;
    private final String brokerName;
    private final ConfigDef.Type type;
    private final long min;
    private final String documentation;

    DynamicSetting(String topicName, String brokerName, ConfigDef.Type type, long min, String documentation) {
        this.topicName = topicName;
        this.brokerName = brokerName;
        this.type = type;
        this.min = min;
        this.documentation = documentation;
    }

    /** The topic config's name, or null when it is a broker setting only. */
    public String topicName() {
        return topicName;
    }

    public String brokerName() {
        return brokerName;
    }

    public ConfigDef.Type type() {
        return type;
    }

    public String documentation() {
        return documentation;
    }

    /** The value the broker started with, as a config string. */
    public String staticValue(BrokerConfig config) {
        return switch (this) {
            case MIN_INSYNC_REPLICAS -> String.valueOf(config.minInsyncReplicas());
            case RETENTION_BYTES -> String.valueOf(config.retentionBytes());
            case MAX_MESSAGE_BYTES -> String.valueOf(config.maxMessageBytes());
            case REPLICA_LAG_TIME_MAX_MS -> String.valueOf(config.replicaLagTimeMaxMs());
        };
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
        ConfigDef.Range.atLeast(min).ensureValid(name, parsed);
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
