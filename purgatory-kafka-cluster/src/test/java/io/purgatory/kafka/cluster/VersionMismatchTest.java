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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * purgatory-kafka built for one Kafka line, first on the classpath of a broker of the neighbouring line: the broker
 * logs one ERROR naming the Kafka version found, the line the jar is for and the jar to use instead, and does not
 * start (its JVM exits), rather than run with another line's signatures. The 4.4 jar on Kafka 4.3.1, and both ways
 * between 3.9 (whose purgatory is Scala and whose jar is the timer alone) and 4.0.
 */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class VersionMismatchTest {

    @Test
    void aKafka431BrokerWithThe44JarLogsOneErrorNamingTheJarToUseAndDoesNotStart() throws Exception {
        assertRefused(TestRuntimes.module("4.3.1"), "4.4", "4.3.1");
    }

    @ParameterizedTest(name = "the {0} jar on Kafka {1}")
    @CsvSource({"3.9, 4.0.2", "4.0, 3.9.1"})
    void aBrokerOfTheLineBesideKafka39WithTheOtherJarLogsOneErrorAndDoesNotStart(String jarLine, String kafkaVersion) throws Exception {
        assertRefused(TestRuntimes.withJarOfLine(kafkaVersion, jarLine), jarLine, kafkaVersion);
    }

    private static void assertRefused(KafkaRuntime runtime, String jarLine, String kafkaVersion) throws Exception {
        Path directory = TestRuntimes.clusterDirectory("module-" + jarLine + "-on-kafka-" + kafkaVersion);
        ClusterSpec spec = ClusterSpec.threeNodes(runtime, directory).withNodes(1);

        Exception failure = assertThrows(Exception.class, () -> KafkaCluster.start(spec).close());
        assertTrue(String.valueOf(failure).contains("exited with") || String.valueOf(failure.getCause()).contains("exited with"),
                "the start fails because the broker exits: " + failure);

        Path log;
        try (Stream<Path> files = Files.walk(directory)) {
            log = files.filter(f -> f.getFileName().toString().equals("node-0.log")).findFirst().orElseThrow();
        }
        List<String> ours = Files.readAllLines(log).stream().filter(line -> line.endsWith("(io.purgatory.kafka.ModuleInfo)")).toList();
        assertEquals(1, ours.size(), "one line from the module: " + ours);
        String runningLine = kafkaVersion.substring(0, kafkaVersion.lastIndexOf('.'));
        assertTrue(ours.get(0).contains("] ERROR ") && ours.get(0).contains("built for Kafka " + jarLine + " ")
                && ours.get(0).contains("runs Kafka " + kafkaVersion) && ours.get(0).contains("use purgatory-kafka-" + runningLine + "-"), ours.get(0));
    }
}
