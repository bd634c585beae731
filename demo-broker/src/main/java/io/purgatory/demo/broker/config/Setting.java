package io.purgatory.demo.broker.config;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One broker setting, defined once, in the manner of Kafka's {@code ConfigDef}: its option name,
 * value type, default, range, documentation and whether {@code kafka-configs} may change it while
 * the broker runs ({@link Scope#DYNAMIC}, with Kafka's config names). The command line's option,
 * the {@link BrokerConfig.Builder}'s default, the range check, the dynamic config's parser and
 * docs/demo.md's option table (checked by a test) all come from it. {@link BrokerSettings} holds
 * the table.
 *
 * <p>Every numeric setting has both bounds, so no value the broker accepts can overflow the
 * arithmetic done with it (a replica id as a Kafka {@code int32}, a deadline as now plus a delay).
 *
 * <p>Thread-safe: immutable.
 *
 * @param <T> the value's type: {@code Integer}, {@code Long}, {@code Boolean}, {@code String},
 *     {@code java.nio.file.Path}, or a {@code List} of {@link TopicSpec} or {@code Integer} for a repeatable option
 */
public final class Setting<T> {
    /** Whether the value is fixed at start or {@code kafka-configs} may change it while the broker runs. */
    public enum Scope { STATIC, DYNAMIC }

    /** Ten years in milliseconds: the bound of every duration, far from overflowing a {@code long} deadline. */
    public static final long MAX_DURATION_MS = 10L * 365 * 24 * 3600 * 1000;

    private final String option;
    private final String paramLabel;
    private final Class<?> type;
    private final Class<?> elementType;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final String documentation;
    private final Scope scope;
    private final String brokerConfigName;
    private final String topicConfigName;
    private final CommandLine.ITypeConverter<?> converter;

    private Setting(String option, String paramLabel, Class<?> type, Class<?> elementType, String defaultValue, long min, long max,
                    String documentation, Scope scope, String brokerConfigName, String topicConfigName,
                    CommandLine.ITypeConverter<?> converter) {
        this.option = Objects.requireNonNull(option);
        this.paramLabel = paramLabel;
        this.type = type;
        this.elementType = elementType;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.documentation = Objects.requireNonNull(documentation);
        this.scope = scope;
        this.brokerConfigName = brokerConfigName;
        this.topicConfigName = topicConfigName;
        this.converter = converter;
        if (isNumeric() && (min > max || min == Long.MIN_VALUE || max == Long.MAX_VALUE)) {
            throw new IllegalArgumentException(option + ": a numeric setting needs both bounds");
        }
    }

    /** An {@code int} setting accepting {@code min..max}. */
    public static Setting<Integer> ofInt(String option, String paramLabel, int defaultValue, int min, int max, String documentation) {
        return new Setting<>(option, paramLabel, Integer.class, null, String.valueOf(defaultValue), min, max, documentation,
                Scope.STATIC, null, null, null);
    }

    /** A {@code long} setting accepting {@code min..max}. */
    public static Setting<Long> ofLong(String option, String paramLabel, long defaultValue, long min, long max, String documentation) {
        return new Setting<>(option, paramLabel, Long.class, null, String.valueOf(defaultValue), min, max, documentation,
                Scope.STATIC, null, null, null);
    }

    /** A switch: given alone, it is {@code true}. */
    public static Setting<Boolean> ofFlag(String option, boolean defaultValue, String documentation) {
        return new Setting<>(option, null, Boolean.class, null, String.valueOf(defaultValue), 0, 0, documentation,
                Scope.STATIC, null, null, null);
    }

    /** A text or file setting ({@code String} or {@code Path}); {@code defaultValue} may be null (none). */
    public static <T> Setting<T> of(String option, String paramLabel, Class<T> type, String defaultValue, String documentation) {
        return new Setting<>(option, paramLabel, type, null, defaultValue, 0, 0, documentation, Scope.STATIC, null, null, null);
    }

    /** A repeatable option of {@code elementType}, each value converted by {@code converter} (null: picocli's own). */
    public static <E> Setting<List<E>> ofList(String option, String paramLabel, Class<E> elementType, String defaultValue,
                                              CommandLine.ITypeConverter<E> converter, String documentation) {
        return new Setting<>(option, paramLabel, List.class, elementType, defaultValue, 0, 0, documentation, Scope.STATIC, null, null,
                converter);
    }

    /**
     * This setting, which {@code kafka-configs} may change while the broker runs, under Kafka's
     * broker config name and, if a topic may override it, its topic config name (else null).
     */
    public Setting<T> dynamic(String brokerConfigName, String topicConfigName) {
        return new Setting<>(option, paramLabel, type, elementType, defaultValue, min, max, documentation, Scope.DYNAMIC,
                Objects.requireNonNull(brokerConfigName), topicConfigName, converter);
    }

    /** The command line's option name, e.g. {@code --port}; also the setting's name in messages. */
    public String option() {
        return option;
    }

    /** The default as the command line spells it, or null when there is none. */
    public String defaultValue() {
        return defaultValue;
    }

    public String documentation() {
        return documentation;
    }

    public Scope scope() {
        return scope;
    }

    /** Kafka's broker config name of a dynamic setting, else null. */
    public String brokerConfigName() {
        return brokerConfigName;
    }

    /** Kafka's topic config name of a dynamic setting a topic may override, else null. */
    public String topicConfigName() {
        return topicConfigName;
    }

    /** The smallest value accepted (numeric settings). */
    public long min() {
        return min;
    }

    /** The largest value accepted (numeric settings). */
    public long max() {
        return max;
    }

    boolean isRepeatable() {
        return type == List.class;
    }

    boolean isNumeric() {
        return type == Integer.class || type == Long.class;
    }

    /** Kafka's {@code ConfigDef} type of the value. */
    public ConfigDef.Type kafkaType() {
        if (type == Integer.class) {
            return ConfigDef.Type.INT;
        }
        if (type == Long.class) {
            return ConfigDef.Type.LONG;
        }
        return type == Boolean.class ? ConfigDef.Type.BOOLEAN : ConfigDef.Type.STRING;
    }

    /**
     * Checks {@code value} against the range.
     *
     * @throws IllegalArgumentException in one line naming the option and the value, e.g. {@code --port must be 0..65535, was 70000}
     */
    void check(Object value) {
        if (isNumeric()) {
            long v = ((Number) value).longValue();
            if (v < min || v > max) {
                throw new IllegalArgumentException(option + " must be " + min + ".." + max + ", was " + v);
            }
        }
    }

    /** The command line's option for this setting, its help text ending with the default. */
    OptionSpec optionSpec() {
        OptionSpec.Builder builder = OptionSpec.builder(option)
                .description(documentation + (defaultValue == null ? "" : " Default: ${DEFAULT-VALUE}."));
        if (type == Boolean.class) {
            builder.type(boolean.class).arity("0").negatable(true); // --no-NAME turns off a flag that defaults on
        } else {
            builder.paramLabel(paramLabel);
            if (type == List.class) {
                builder.type(List.class).auxiliaryTypes(elementType);
            } else {
                builder.type(type == Integer.class ? int.class : type == Long.class ? long.class : type);
            }
        }
        if (converter != null) {
            builder.converters(converter);
        }
        if (defaultValue != null) {
            builder.defaultValue(defaultValue);
        }
        return builder.build();
    }

    @Override
    public String toString() {
        return option;
    }
}
