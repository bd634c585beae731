package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.DynamicSetting;
import io.purgatory.demo.broker.log.LogConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * The broker's values of the {@link DynamicSetting}s, in Kafka's order of precedence: a value set
 * for this broker ({@code kafka-configs --entity-type brokers --entity-name 0}), else one set as
 * the cluster default ({@code --entity-default}), else the value the broker started with. A
 * topic's own value ({@link TopicRegistry.Topic#configs()}) comes before all three.
 *
 * <p>Thread-safe: the two override maps are immutable and replaced whole, under the
 * {@link TopicRegistry}'s metadata lock, which serialises every change; readers take the volatile
 * maps as they are.
 */
final class DynamicConfigs {
    /** Kafka names the cluster-wide default broker resource by the empty string. */
    static final String DEFAULT_BROKER = "";

    private final BrokerConfig config;
    private volatile Map<DynamicSetting, String> brokerOverrides = Map.of();
    private volatile Map<DynamicSetting, String> defaultOverrides = Map.of();

    DynamicConfigs(BrokerConfig config) {
        this.config = config;
    }

    /** A setting's value and where it comes from. */
    record Value(String value, ConfigSource source) {
    }

    /** The broker's value of a setting: its own override, the cluster default's, or the static one. */
    Value brokerValue(DynamicSetting setting) {
        return synonyms(setting, Map.of()).get(0);
    }

    /**
     * Every value the setting has, highest precedence first (Kafka's synonyms): the topic's (when
     * {@code topicConfigs} has one), this broker's, the cluster default's, the static one.
     */
    List<Value> synonyms(DynamicSetting setting, Map<DynamicSetting, String> topicConfigs) {
        List<Value> values = new ArrayList<>(4);
        String topic = topicConfigs.get(setting);
        if (topic != null) {
            values.add(new Value(topic, ConfigSource.TOPIC_CONFIG));
        }
        String broker = brokerOverrides.get(setting);
        if (broker != null) {
            values.add(new Value(broker, ConfigSource.DYNAMIC_BROKER_CONFIG));
        }
        String byDefault = defaultOverrides.get(setting);
        if (byDefault != null) {
            values.add(new Value(byDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
        values.add(new Value(setting.staticValue(config), ConfigSource.STATIC_BROKER_CONFIG));
        return values;
    }

    /** The overrides set on a broker resource: {@value #DEFAULT_BROKER} for the cluster default, else this broker's. */
    Map<DynamicSetting, String> overrides(String brokerResource) {
        return DEFAULT_BROKER.equals(brokerResource) ? defaultOverrides : brokerOverrides;
    }

    /** Replaces the overrides of a broker resource. Under the metadata lock. */
    void setOverrides(String brokerResource, Map<DynamicSetting, String> overrides) {
        Map<DynamicSetting, String> copy = overrides.isEmpty()
                ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(overrides));
        if (DEFAULT_BROKER.equals(brokerResource)) {
            defaultOverrides = copy;
        } else {
            brokerOverrides = copy;
        }
    }

    /** A topic's log config: its own values over the broker's. */
    LogConfig logConfig(Map<DynamicSetting, String> topicConfigs) {
        long retentionBytes = (Long) DynamicSetting.RETENTION_BYTES.parse(value(DynamicSetting.RETENTION_BYTES, topicConfigs));
        return new LogConfig(
                (Integer) DynamicSetting.MIN_INSYNC_REPLICAS.parse(value(DynamicSetting.MIN_INSYNC_REPLICAS, topicConfigs)),
                retentionBytes < 0 ? Long.MAX_VALUE : Math.max(1, retentionBytes),
                (Integer) DynamicSetting.MAX_MESSAGE_BYTES.parse(value(DynamicSetting.MAX_MESSAGE_BYTES, topicConfigs)));
    }

    long replicaLagTimeMaxMs() {
        return (Long) DynamicSetting.REPLICA_LAG_TIME_MAX_MS.parse(brokerValue(DynamicSetting.REPLICA_LAG_TIME_MAX_MS).value());
    }

    private String value(DynamicSetting setting, Map<DynamicSetting, String> topicConfigs) {
        return synonyms(setting, topicConfigs).get(0).value();
    }
}
