package io.purgatory.kafka.cluster;

import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A {@link KafkaCluster} for one test class: started before its first test, shared by its tests, killed after
 * the last (every JVM by its PID, also when a test failed or timed out). A failing test gets the tail of every
 * broker's log attached to its failure; the full logs stay under {@code target/kafka-clusters/}.
 *
 * <p>Registered as a static field with {@code @RegisterExtension}. Not thread-safe: JUnit calls it from the
 * class's one test thread.
 */
final class KafkaClusterExtension implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {

    private static final int LOG_TAIL_LINES = 60;

    private final Supplier<KafkaRuntime> runtime;
    private KafkaCluster cluster;

    private KafkaClusterExtension(Supplier<KafkaRuntime> runtime) {
        this.runtime = runtime;
    }

    /** Three brokers of stock Kafka 4.4.0. */
    static KafkaClusterExtension stock() {
        return new KafkaClusterExtension(() -> TestRuntimes.stock("4.4.0"));
    }

    /** Three brokers of Kafka 4.4.0 with purgatory-kafka first on each one's classpath. */
    static KafkaClusterExtension module() {
        return new KafkaClusterExtension(() -> TestRuntimes.module("4.4.0"));
    }

    /** Three brokers of Kafka {@code kafkaVersion} with the purgatory-kafka jar of its own line first on each one's classpath. */
    static KafkaClusterExtension moduleOfLine(String kafkaVersion) {
        return new KafkaClusterExtension(() -> TestRuntimes.moduleOfLine(kafkaVersion));
    }

    /** The running cluster. */
    KafkaCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster is started before the class's first test");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        KafkaRuntime chosen = runtime.get();
        Path directory = TestRuntimes.clusterDirectory(context.getRequiredTestClass().getSimpleName() + "-" + chosen.label());
        cluster = KafkaCluster.start(ClusterSpec.threeNodes(chosen, directory)
                // a share group's records return to the group 2 s after a consumer acquired them unacknowledged
                .withBrokerProperty("group.share.record.lock.duration.ms", "2000")
                .withBrokerProperty("group.share.min.record.lock.duration.ms", "1000")
                // a consumer-protocol group may set a session as short as a classic member's (KilledGroupMember)
                .withBrokerProperty("group.consumer.min.session.timeout.ms", String.valueOf(ForkedMember.SESSION_TIMEOUT_MS)));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        if (cluster != null) {
            failure.addSuppressed(new BrokerLogs(cluster.logTails(LOG_TAIL_LINES)));
        }
        throw failure;
    }

    /** The brokers' log tails, attached to a failed test's exception so that the report shows them. */
    static final class BrokerLogs extends Exception {
        private static final long serialVersionUID = 1L;

        BrokerLogs(String tails) {
            super("the brokers' logs at the failure:" + tails, null, false, false);
        }
    }
}
