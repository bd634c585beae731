package io.purgatory.kafka.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings each node of a cluster is written with, without starting one. */
class ClusterSpecTest {

    @TempDir
    Path directory;

    @Test
    void onlyTheNodesStoppedWithoutAQuorumOfControllersLeftRunWithoutControlledShutdown() throws IOException {
        assertEquals(List.of(false), stopsWithoutQuorum(1));
        assertEquals(List.of(false, true), stopsWithoutQuorum(2));
        assertEquals(List.of(false, false, true), stopsWithoutQuorum(3));
        assertEquals(List.of(false, false, false, true, true), stopsWithoutQuorum(5));

        ClusterSpec spec = spec(3);
        assertNull(config(spec, 0).getProperty("controlled.shutdown.enable"), "Kafka's default (true) on node 0");
        assertNull(config(spec, 1).getProperty("controlled.shutdown.enable"), "Kafka's default (true) on node 1");
        assertEquals("false", config(spec, 2).getProperty("controlled.shutdown.enable"));
    }

    @Test
    void aNodeSettingGoesToThatNodeAloneAndOverTheCommonOnes() throws IOException {
        ClusterSpec spec = spec(3)
                .withBrokerProperty("replica.fetch.wait.max.ms", "400")
                .withNodeProperty(2, "replica.fetch.wait.max.ms", "2000");
        assertEquals("400", config(spec, 0).getProperty("replica.fetch.wait.max.ms"));
        assertEquals("400", config(spec, 1).getProperty("replica.fetch.wait.max.ms"));
        assertEquals("2000", config(spec, 2).getProperty("replica.fetch.wait.max.ms"));
    }

    @Test
    void aSettingForANodeOutsideTheClusterIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> spec(3).withNodeProperty(3, "replica.fetch.wait.max.ms", "2000"));
        assertTrue(refused.getMessage().contains("no node 3 in a cluster of 3"), refused.getMessage());
        assertEquals(Map.of(), spec(3).withNodeProperty(2, "a", "b").withNodes(2).nodeProperties(),
                "node 2's setting goes with node 2");
    }

    private ClusterSpec spec(int nodes) {
        KafkaRuntime runtime = new KafkaRuntime("4.4.0", List.of(directory.resolve("kafka.jar")), Optional.empty());
        return ClusterSpec.threeNodes(runtime, directory).withNodes(nodes);
    }

    private List<Boolean> stopsWithoutQuorum(int nodes) {
        ClusterSpec spec = spec(nodes);
        return IntStream.range(0, nodes).mapToObj(spec::stopsWithoutQuorum).toList();
    }

    private Properties config(ClusterSpec spec, int id) throws IOException {
        Path nodeDirectory = directory.resolve("node-" + id);
        KafkaNode node = new KafkaNode(id, new NodePorts(9092 + id, 9192 + id, 9292 + id), nodeDirectory,
                directory.resolve("log4j2.properties"), spec);
        node.writeConfig("0@127.0.0.1:9192", spec);
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(nodeDirectory.resolve("server.properties"), StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        return properties;
    }
}
