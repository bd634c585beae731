package io.purgatory.kafka.cluster;

import java.nio.file.Path;

/**
 * The runtimes the cluster tests start brokers on, from the paths the build passes as system properties
 * (purgatory-kafka-cluster/pom.xml): stock Kafka 3.9.1, 4.0.2, 4.1.2, 4.2.1, 4.3.1 and 4.4.0, and each with a purgatory-kafka jar first.
 */
final class TestRuntimes {

    private TestRuntimes() {
    }

    static KafkaRuntime stock(String kafkaVersion) {
        return KafkaRuntime.stock(kafkaVersion, Path.of(property("purgatory.kafka.broker-classpath." + kafkaVersion)));
    }

    /** Kafka {@code kafkaVersion} with the newest line's jar (4.4) first. */
    static KafkaRuntime module(String kafkaVersion) {
        return stock(kafkaVersion).withModule(Path.of(property("purgatory.kafka.module-jar")));
    }

    /** Kafka {@code kafkaVersion} with the jar of its own line first. */
    static KafkaRuntime moduleOfLine(String kafkaVersion) {
        return withJarOfLine(kafkaVersion, kafkaVersion.substring(0, kafkaVersion.lastIndexOf('.')));
    }

    /** Kafka {@code kafkaVersion} with the jar built for Kafka line {@code line} first (another line's, to test the refusal). */
    static KafkaRuntime withJarOfLine(String kafkaVersion, String line) {
        return stock(kafkaVersion).withModule(Path.of(property("purgatory.kafka.module-jar." + line)));
    }

    /** Where a test's cluster keeps its files: under target/, one directory per test class and runtime. */
    static Path clusterDirectory(String name) {
        return Path.of(property("purgatory.kafka.cluster-dir")).resolve(name);
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the cluster tests through Maven "
                    + "(mvn -B -pl purgatory-kafka-cluster -am verify), which sets it");
        }
        return value;
    }
}
