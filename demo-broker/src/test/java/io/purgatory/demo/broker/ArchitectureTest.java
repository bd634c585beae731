package io.purgatory.demo.broker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The demo broker's layers, in the shape of Kafka's own broker, checked on its compiled classes.
 * Top to bottom: the broker itself ({@code DemoBroker} starts and stops the parts,
 * {@code BrokerMain} is its command line), {@code http} (the dashboard), {@code network} (the
 * Kafka listener: connections, framing, response order, limits), {@code server} (the API
 * dispatcher, one handler per API and the delayed operations they park), {@code coordinator} (the
 * classic group coordinator with its rebalance and heartbeat purgatories), {@code replication}
 * (the simulated followers), {@code cluster} (partition and replica state), {@code log} (the
 * in-memory log and record validation), and beside them {@code metrics} (counters, throttled
 * warnings and each owner's registry of its purgatories, which the coordinator uses too) and
 * {@code config} (settings). Each layer uses only the ones below it; Netty stays in the network
 * and dashboard layers; the network layer knows nothing of the purgatory.
 *
 * <p>ArchUnit reads bytecode, which keeps no import used only by javadoc; so the same layers are
 * also checked on the source files' imports ({@link #sourceImportsRespectTheLayersToo}), and no
 * import may exist for javadoc alone ({@link #noImportIsOnlyForJavadoc}): a comment names a class
 * of another layer in a code tag, or links it by its fully qualified name.
 */
class ArchitectureTest {
    private static final String BROKER = "io.purgatory.demo.broker";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BROKER);

    @Test
    void dependenciesRunOneWayTopToBottom() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Broker").definedBy(BROKER)
                .layer("Http").definedBy(BROKER + ".http..")
                .layer("Network").definedBy(BROKER + ".network..")
                .layer("Server").definedBy(BROKER + ".server..")
                .layer("Coordinator").definedBy(BROKER + ".coordinator..")
                .layer("Replication").definedBy(BROKER + ".replication..")
                .layer("Cluster").definedBy(BROKER + ".cluster..")
                .layer("Log").definedBy(BROKER + ".log..")
                .layer("Metrics").definedBy(BROKER + ".metrics..")
                .layer("Config").definedBy(BROKER + ".config..")
                .whereLayer("Broker").mayNotBeAccessedByAnyLayer()
                .whereLayer("Http").mayOnlyBeAccessedByLayers("Broker")
                .whereLayer("Network").mayOnlyBeAccessedByLayers("Broker")
                .whereLayer("Server").mayOnlyBeAccessedByLayers("Broker", "Http", "Network")
                .whereLayer("Coordinator").mayOnlyBeAccessedByLayers("Broker", "Http", "Server")
                .whereLayer("Replication").mayOnlyBeAccessedByLayers("Broker", "Http", "Server")
                .whereLayer("Cluster").mayOnlyBeAccessedByLayers("Broker", "Http", "Server", "Replication")
                .whereLayer("Log").mayOnlyBeAccessedByLayers("Http", "Server", "Cluster")
                .whereLayer("Metrics").mayOnlyBeAccessedByLayers("Broker", "Http", "Network", "Server", "Coordinator")
                .check(CLASSES);
    }

    /** The layers each layer may import, as docs/demo.md's table states them; the root package may import all. */
    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "http", Set.of("server", "coordinator", "replication", "cluster", "log", "metrics", "config"),
            "network", Set.of("server", "metrics", "config"),
            "server", Set.of("coordinator", "replication", "cluster", "log", "metrics", "config"),
            "coordinator", Set.of("metrics", "config"),
            "replication", Set.of("cluster", "config"),
            "cluster", Set.of("log", "config"),
            "log", Set.of(),
            "metrics", Set.of(),
            "config", Set.of());
    private static final Path SOURCES = Path.of("src", "main", "java", "io", "purgatory", "demo", "broker");
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)\\.(\\w+|\\*);", Pattern.MULTILINE);
    /** Text blocks, strings, characters and comments, in the order a lexer meets them. */
    private static final Pattern NOT_CODE = Pattern.compile(
            "\"\"\"[\\s\\S]*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])'|/\\*[\\s\\S]*?\\*/|//[^\\n]*");

    @Test
    void sourceImportsRespectTheLayersToo() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Path file : sources()) {
            String layer = layerOf(SOURCES.relativize(file.getParent()));
            if (layer.isEmpty()) {
                continue;
            }
            Matcher m = IMPORT.matcher(Files.readString(file));
            while (m.find()) {
                String imported = m.group(2) + "." + m.group(3);
                if (imported.startsWith(BROKER + ".")) {
                    String target = layerOf(Path.of(imported.substring(BROKER.length() + 1).replace('.', '/')).getParent());
                    if (!target.equals(layer) && !MAY_USE.get(layer).contains(target)) {
                        violations.add(file + ": " + layer + " imports " + imported);
                    }
                } else if (layer.equals("network") && imported.startsWith("io.purgatory.")) {
                    violations.add(file + ": the network layer imports the purgatory's " + imported);
                }
            }
        }
        assertEquals(List.of(), violations);
    }

    @Test
    void noImportIsOnlyForJavadoc() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Path file : sources()) {
            String source = Files.readString(file);
            String code = IMPORT.matcher(NOT_CODE.matcher(source).replaceAll(" ")).replaceAll("");
            Matcher m = IMPORT.matcher(source);
            while (m.find()) {
                if (!m.group(3).equals("*") && !Pattern.compile("\\b" + m.group(3) + "\\b").matcher(code).find()) {
                    violations.add(file + ": " + m.group().trim());
                }
            }
        }
        assertEquals(List.of(), violations, "imports used only in comments");
    }

    @Test
    void theNetworkLayerKnowsNothingOfThePurgatory() {
        noClasses().that().resideInAPackage(BROKER + ".network..")
                .should().dependOnClassesThat().resideInAnyPackage("io.purgatory", "io.purgatory.timer..")
                .because("the listener hands responses back; what waits for them is the server layer's business")
                .check(CLASSES);
    }

    /** The first package below the broker's root in {@code relative}, or "" for the root itself. */
    private static String layerOf(Path relative) {
        return relative == null || relative.toString().isEmpty() ? "" : relative.getName(0).toString();
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            List<Path> java = files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
            assertTrue(java.size() > 50, "the broker's sources, found " + java.size());
            return java;
        }
    }

    @Test
    void noCyclesBetweenPackages() {
        slices().matching(BROKER + ".(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void nettyStaysInTheNetworkAndDashboardLayers() {
        noClasses().that().resideInAnyPackage(BROKER + ".server..", BROKER + ".coordinator..", BROKER + ".replication..", BROKER + ".cluster..",
                        BROKER + ".log..", BROKER + ".metrics..", BROKER + ".config..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("the broker's logic is testable without a socket, as Kafka's KafkaApis and ReplicaManager are")
                .check(CLASSES);
    }

    @Test
    void theDemoKnowsNothingOfWheelInternals() {
        noClasses().should().dependOnClassesThat().resideInAPackage("io.purgatory.timer..")
                .because("the demo uses the purgatory, not the timing wheel under it")
                .check(CLASSES);
    }
}
