package io.purgatory.kafka.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fixture's own promises: a node that dies while the cluster starts leaves no JVM of that cluster behind. */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterFixtureTest {

    @Test
    void aNodeKilledWhileTheClusterStartsFailsTheStartAndLeavesNoJvmBehind() throws Exception {
        Path directory = TestRuntimes.clusterDirectory("killed-while-starting");
        CompletableFuture<KafkaCluster> start = CompletableFuture.supplyAsync(
                () -> KafkaCluster.start(ClusterSpec.threeNodes(TestRuntimes.stock("4.4.0"), directory)));
        try {
            ProcessHandle broker = await("a broker JVM of the cluster").atMost(Duration.ofMinutes(2))
                    .until(() -> brokersOf(directory).stream().findFirst(), Optional::isPresent).orElseThrow();
            broker.destroyForcibly();

            Exception failure = assertThrows(Exception.class, () -> start.get(3, TimeUnit.MINUTES));
            assertTrue(String.valueOf(failure.getCause()).contains("exited with"), "the start names the node that exited: " + failure);
            assertEquals(List.of(), brokersOf(directory), "JVMs of the cluster still running after its failed start");
        } finally {
            start.thenAccept(KafkaCluster::close);
        }
    }

    /**
     * The live broker JVMs of the cluster in {@code directory}: this JVM's descendants whose command line names a
     * node directory there and a JMX port, which brokers have and the StorageTool does not (the JDK cuts a command
     * line at 4 KiB, well before the classpath ends and the main class comes).
     */
    private static List<ProcessHandle> brokersOf(Path directory) {
        return ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine()
                        .map(line -> line.contains("-Dkafka.logs.dir=" + directory) && line.contains("-Dcom.sun.management.jmxremote.port="))
                        .orElse(false))
                .toList();
    }
}
