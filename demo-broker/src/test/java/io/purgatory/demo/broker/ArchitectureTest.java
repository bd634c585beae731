package io.purgatory.demo.broker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The demo broker's layers, in the shape of Kafka's own broker, checked on its compiled classes.
 * Top to bottom: the broker itself ({@code DemoBroker} starts and stops the parts,
 * {@code BrokerMain} is its command line), {@code http} (the dashboard), {@code network} (the
 * Kafka listener: connections, framing, response order, limits), {@code server} (the API
 * dispatcher, one handler per API and the delayed operations they park), {@code coordinator} (the
 * classic group coordinator with its rebalance and heartbeat purgatories), {@code replication}
 * (the simulated followers), {@code cluster} (partition and replica state), {@code log} (the
 * in-memory log and record validation), and beside them {@code metrics} (counters and throttled warnings, which the coordinator uses too) and
 * {@code config} (settings). Each layer uses only the ones below it; Netty stays in the network
 * and dashboard layers.
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
