package io.purgatory.demo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.DocumentedOptions;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.http.DashboardServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The command end to end against an in-process demo broker: what a user sees, and the exit code. */
class ClientMainTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private String bootstrap() {
        return "localhost:" + broker.port();
    }

    @Tag("integration")
    @Test
    void healthyBrokerAcksEveryRequestAndSpreadsThemOverThePartitions() throws Exception {
        broker = brokers.start(BrokerConfig.builder().topic("demo", 3));

        Execution run = Execution.of("--bootstrap", bootstrap(), "--requests", "30", "--rate", "0", "--timeout-ms", "5000");

        assertEquals(0, run.exitCode(), run::toString);
        assertEquals("", run.err(), run::toString);
        assertTrue(run.out().startsWith("demo-client: 30 produce requests to 'demo' (3 partitions) on " + bootstrap()
                + ": acks=-1, timeout 5000 ms, as fast as possible, at most 500 in flight, 100-byte records"), run::toString);
        assertTrue(run.out().contains("Summary: 30 of 30 requests sent"), run::toString);
        assertEquals("30", run.summaryRow("acked").get(1), run::toString);
        assertEquals(1, run.outLines().stream().filter(line -> line.startsWith("  acked") || line.startsWith("  timed out")).count(),
                "only acks: " + run);
        for (int partition = 0; partition < 3; partition++) {
            assertEquals(10, broker.replicaManager().partition("demo", partition).leaderEndOffset(), "request i goes to partition i mod 3");
        }
    }

    @Tag("integration")
    @Test
    void stalledReplicaTimesOutAcksAllButNotAcksOne() throws Exception {
        broker = brokers.start(BrokerConfig.builder().followers(2).stallReplica(2));

        Execution all = Execution.of("--bootstrap", bootstrap(), "--requests", "10", "--rate", "0", "--timeout-ms", "200",
                "--acks", "all");
        Execution one = Execution.of("--bootstrap", bootstrap(), "--requests", "10", "--rate", "0", "--timeout-ms", "200",
                "--acks", "1");

        assertEquals(0, all.exitCode(), "timeouts are an expected outcome: " + all);
        assertEquals("10", all.summaryRow("timed out").get(1), all::toString);
        assertTrue(all.out().contains("x timed out"), "the histogram draws the timeouts: " + all);
        assertEquals(0, one.exitCode(), one::toString);
        assertEquals("10", one.summaryRow("acked").get(1), one::toString);
    }

    @Tag("integration")
    @Test
    void noBrokerIsOneLineOnStderrAndExitOne() throws IOException {
        final int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }

        Execution run = Execution.of("--bootstrap", "localhost:" + port, "--requests", "5");

        assertEquals(1, run.exitCode(), run::toString);
        assertEquals(List.of("demo-client: cannot connect to localhost:" + port + ": Connection refused"), run.errLines(), run::toString);
        assertEquals("", run.out(), run::toString);
    }

    @Tag("integration")
    @Test
    void unknownTopicIsOneLineOnStderrAndExitOne() throws Exception {
        broker = brokers.get();

        Execution run = Execution.of("--bootstrap", bootstrap(), "--topic", "nope", "--requests", "5");

        assertEquals(1, run.exitCode(), run::toString);
        assertEquals(List.of("demo-client: topic 'nope' does not exist on " + bootstrap() + " (UNKNOWN_TOPIC_OR_PARTITION)"), run.errLines(),
                run::toString);
        assertEquals("", run.out(), run::toString);
    }

    @Tag("integration")
    @Test
    void brokerShuttingDownMidRunIsReportedWithTheSummarySoFar() throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2));
        CompletableFuture<Execution> running = CompletableFuture.supplyAsync(() -> Execution.of(
                "--bootstrap", bootstrap(), "--requests", "100000", "--rate", "100", "--timeout-ms", "60000"));

        await().atMost(Duration.ofSeconds(10)).until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() >= 3);
        broker.close(); // answers the parked produces (NOT_LEADER_OR_FOLLOWER), then closes the connection
        await().atMost(Duration.ofSeconds(20)).until(running::isDone);

        Execution run = running.get();
        assertEquals(1, run.exitCode(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        // the client may notice the close on a read, or first on a write racing it
        assertTrue(run.errLines().get(0).matches("demo-client: lost the connection to " + bootstrap()
                + " \\((closed by the broker|write failed: [^)]+)\\) with \\d+ request\\(s\\) in flight; \\d+ not sent"),
                run::toString);
        assertTrue(Long.parseLong(run.summaryRow("NOT_LEADER_OR_FOLLOWER").get(1)) >= 3, "the parked requests were answered: " + run);
        assertTrue(Long.parseLong(run.summaryRow("not sent").get(1)) > 0, run::toString);
    }

    @Tag("integration")
    @Test
    void anHttpPortIsNotAKafkaBrokerInOneLine() throws Exception {
        broker = brokers.get();
        try (DashboardServer dashboard = DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(), "127.0.0.1", 0)) {
            Execution run = Execution.of("--bootstrap", "localhost:" + dashboard.port(), "--requests", "1");

            assertEquals(1, run.exitCode(), run::toString);
            assertEquals(List.of("demo-client: localhost:" + dashboard.port() + " is not a Kafka broker: it answered with text"
                    + " starting 'HTTP' where a Kafka response starts with its length"), run.errLines());
        }
    }

    @Test
    void aNegativeRateIsRefusedNamingTheOptionAndTheValue() {
        Execution rate = Execution.of("--rate", "-1");

        assertEquals(2, rate.exitCode(), rate::toString);
        assertEquals(List.of("demo-client: --rate must be 0 (no limit) or a positive number of requests/s, but was -1",
                "Try 'demo-client --help' for the options."), rate.errLines());
    }

    @Test
    void invalidOptionsAreRefusedWithTheReason() {
        Execution acks = Execution.of("--acks", "2");
        Execution requests = Execution.of("--requests", "-1");

        assertEquals(2, acks.exitCode(), acks::toString);
        assertEquals(List.of("demo-client: Invalid value for option '--acks': expected -1 (or all), 1 or 0, but was '2'",
                "Try 'demo-client --help' for the options."), acks.errLines());
        assertEquals(2, requests.exitCode(), requests::toString);
        assertEquals(List.of("demo-client: --requests must be 0 (until stopped) or more, but was -1",
                "Try 'demo-client --help' for the options."), requests.errLines());
    }

    @Test
    void helpDescribesTheOutcomes() {
        Execution help = Execution.of("--help");

        assertEquals(0, help.exitCode());
        for (String outcome : List.of("acked", "timed out", "other errors", "no response", "disconnected", "sent")) {
            assertTrue(help.out().contains("\n  " + outcome + " "), "help explains '" + outcome + "': " + help);
        }
        assertTrue(help.out().contains("Example:"), help::toString);
    }

    @Test
    void docsDemoMdTablesEveryOptionWithItsDefault() throws IOException {
        DocumentedOptions.assertDocumented(ClientMain.commandLine().getCommandSpec(), "demo-client");
    }

    @Test
    void anOptionGivenTwiceTakesItsLastValueAsDemoShRelies() {
        ClientOptions options = CommandLineOptions.parse("--requests", "3000", "--rate", "300", "--requests", "6000");

        assertEquals(6000, options.requests());
        assertEquals(300, options.rate());
    }
}
