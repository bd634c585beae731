package io.purgatory.demo.broker.config;

import picocli.CommandLine;

/**
 * A {@code --topic NAME:PARTITIONS} value: a topic the broker serves and its partition count.
 * Immutable; the name and count are checked by {@link BrokerConfig}, not here.
 */
public record TopicSpec(String name, int partitions) {
    /** Partitions of a topic given by name alone, as Kafka's {@code num.partitions} default. */
    public static final int DEFAULT_PARTITIONS = 1;

    /** Parses {@code NAME:PARTITIONS}, or {@code NAME} alone for {@value #DEFAULT_PARTITIONS} partition. Stateless. */
    public static final class Converter implements CommandLine.ITypeConverter<TopicSpec> {
        @Override
        public TopicSpec convert(String value) {
            String[] parts = value.split(":", -1);
            if (parts.length == 1) {
                return new TopicSpec(value, DEFAULT_PARTITIONS);
            }
            try {
                if (parts.length == 2) {
                    return new TopicSpec(parts[0], Integer.parseInt(parts[1]));
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new CommandLine.TypeConversionException("expected NAME:PARTITIONS, e.g. demo:3 (NAME alone: "
                    + DEFAULT_PARTITIONS + " partition), but was '" + value + "'");
        }
    }
}
