package io.purgatory.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * purgatory-kafka built for Kafka 4.4, first on the classpath of a Kafka 4.3.1 broker: the broker logs one ERROR
 * naming the Kafka version found, the line the jar is for and the jar to use instead, and does not start (its JVM
 * exits), rather than run with another line's signatures.
 */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VersionMismatchTest {

    @Test
    void aKafka431BrokerWithThe44JarLogsOneErrorNamingTheJarToUseAndDoesNotStart() throws Exception {
        Path directory = TestRuntimes.clusterDirectory("module-4.4-on-kafka-4.3.1");
        ClusterSpec spec = ClusterSpec.threeNodes(TestRuntimes.module("4.3.1"), directory).withNodes(1);

        Exception failure = assertThrows(Exception.class, () -> KafkaCluster.start(spec).close());
        assertTrue(String.valueOf(failure).contains("exited with") || String.valueOf(failure.getCause()).contains("exited with"),
                "the start fails because the broker exits: " + failure);

        Path log;
        try (Stream<Path> files = Files.walk(directory)) {
            log = files.filter(f -> f.getFileName().toString().equals("node-0.log")).findFirst().orElseThrow();
        }
        List<String> ours = Files.readAllLines(log).stream().filter(line -> line.endsWith("(io.purgatory.kafka.ModuleInfo)")).toList();
        assertEquals(1, ours.size(), "one line from the module: " + ours);
        assertTrue(ours.get(0).contains("] ERROR ") && ours.get(0).contains("built for Kafka 4.4")
                && ours.get(0).contains("runs Kafka 4.3.1") && ours.get(0).contains("use purgatory-kafka-4.3-"), ours.get(0));
    }
}
