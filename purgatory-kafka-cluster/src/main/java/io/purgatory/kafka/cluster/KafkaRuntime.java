package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a broker JVM runs: the jars of one Apache Kafka release (kafka_2.13 and its runtime dependencies, as
 * Maven Central serves them) and, for a run on our purgatory, the purgatory-kafka jar ahead of them, as an
 * operator puts it with {@code CLASSPATH=purgatory-kafka.jar bin/kafka-server-start.sh}.
 *
 * <p>The jars come from a classpath file that a {@code kafka-brokers/<version>} build writes
 * ({@code target/broker.classpath}, maven-dependency-plugin's {@code build-classpath}).
 *
 * <p>Immutable, so thread-safe.
 *
 * @param kafkaVersion the Kafka release of the jars
 * @param kafkaJars the broker's own classpath, in Maven's order
 * @param moduleJar the purgatory-kafka jar put first on the classpath; empty for stock Kafka
 */
public record KafkaRuntime(String kafkaVersion, List<Path> kafkaJars, Optional<Path> moduleJar) {

    public KafkaRuntime {
        Objects.requireNonNull(kafkaVersion, "kafkaVersion");
        kafkaJars = List.copyOf(kafkaJars);
        Objects.requireNonNull(moduleJar, "moduleJar");
        if (kafkaJars.isEmpty()) {
            throw new IllegalArgumentException("no Kafka jars for Kafka " + kafkaVersion);
        }
    }

    /**
     * Stock Kafka from a classpath file (entries separated by the platform's path separator).
     *
     * @throws IllegalArgumentException if the file is missing or names a jar that does not exist, with the
     *     command that writes it
     */
    public static KafkaRuntime stock(String kafkaVersion, Path classpathFile) {
        if (!Files.isRegularFile(classpathFile)) {
            throw new IllegalArgumentException("no broker classpath file " + classpathFile
                    + ": build it with mvn -B -q -pl kafka-brokers/" + kafkaVersion + " generate-resources");
        }
        String text;
        try {
            text = Files.readString(classpathFile).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classpathFile, e);
        }
        List<Path> jars = new ArrayList<>();
        for (String entry : text.split(java.io.File.pathSeparator)) {
            Path jar = Path.of(entry).toAbsolutePath();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException(classpathFile + " names a missing jar: " + jar);
            }
            jars.add(jar);
        }
        return new KafkaRuntime(kafkaVersion, jars, Optional.empty());
    }

    /**
     * The same Kafka with the purgatory-kafka jar first on the classpath.
     *
     * @throws IllegalArgumentException if the jar does not exist
     */
    public KafkaRuntime withModule(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no purgatory-kafka jar at " + jar
                    + ": build it with mvn -B -q -pl purgatory-kafka/kafka-<line> -am package -DskipTests");
        }
        // absolute: each broker JVM runs in a directory of its own
        return new KafkaRuntime(kafkaVersion, kafkaJars, Optional.of(jar.toAbsolutePath()));
    }

    /** True when the broker runs on our purgatory. */
    public boolean onModule() {
        return moduleJar.isPresent();
    }

    /** The broker JVM's {@code -cp}: the module jar first, when there is one, then Kafka's jars. */
    public String classpath() {
        List<String> entries = new ArrayList<>();
        moduleJar.ifPresent(jar -> entries.add(jar.toString()));
        kafkaJars.forEach(jar -> entries.add(jar.toString()));
        return String.join(java.io.File.pathSeparator, entries);
    }

    /** For reports and file names: {@code stock-4.4.0} or {@code module-4.4.0}. */
    public String label() {
        return (onModule() ? "module-" : "stock-") + kafkaVersion;
    }
}
