package io.purgatory.demo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.http.DashboardServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * {@code group-bench}: what it reads of the broker's JSON state, the figures it derives from its
 * counters, its option checks, and a small run against a broker in process.
 */
class GroupBenchTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.groupInitialRebalanceDelayMs(100));

    /** The shape of the broker's {@code /api/state}, trimmed to what the bench reads. */
    private static final String STATE = """
            {"timeMs": 1700000000000, "purgatories": [
              {"name": "rebalance", "delayed": 0, "watched": 3, "completed": 9},
              {"name": "heartbeat", "delayed": 100000, "completed": 25000000,
               "expiryLateness": {"count": 0, "sumMs": 0, "maxMs": 0, "p50Ms": 0, "p99Ms": 0, "p999Ms": 0}}]}
            """;

    @Test
    void readsTheHeartbeatPurgatoryFromTheBrokersJsonState() throws Exception {
        HeartbeatPurgatory purgatory = HeartbeatPurgatory.parse(STATE);
        assertEquals(100_000, purgatory.parked());
        assertEquals(25_000_000, purgatory.completed());
        assertEquals(-1, purgatory.watches(), "another purgatory's figure is not taken for the heartbeat one");
    }

    @Test
    @Tag("integration")
    void readsTheHeartbeatPurgatoryOfARunningBroker(DemoBroker broker) throws Exception {
        try (DashboardServer dashboard = DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(),
                "127.0.0.1", 0)) {
            HeartbeatPurgatory purgatory = HeartbeatPurgatory.read(URI.create("http://127.0.0.1:" + dashboard.port() + "/api/state"));
            assertEquals(new HeartbeatPurgatory(0, 0, 0), purgatory, "a broker with no group");
        }
    }

    @Test
    void derivesRateAndBrokerCpuPerHeartbeatFromTwoSnapshots() {
        HeartbeatWindow.Snapshot start = new HeartbeatWindow.Snapshot(0, 1_000, 0, 0, 0, 0, 5_000_000_000L);
        // 10 s, 100,000 heartbeats, the broker 6 s of CPU (0.6 cores), the bench 3 s
        HeartbeatWindow.Snapshot end = new HeartbeatWindow.Snapshot(10_000_000_000L, 101_000, 2, 3, 4, 3_000_000_000L, 11_000_000_000L);
        HeartbeatWindow window = new HeartbeatWindow(start, end, 0.1, new HeartbeatPurgatory(1_000, 1_000, 500),
                new HeartbeatPurgatory(1_000, 1_200, 100_500));
        assertEquals(10_000, window.heartbeatsPerSecond(), 1e-9);
        assertEquals(0.6, window.brokerCores(), 1e-9);
        assertEquals(60, window.brokerMicrosPerHeartbeat(), 1e-9);
        assertEquals(50, window.netBrokerMicrosPerHeartbeat(), 1e-9, "0.5 cores above the idle 0.1 for 10,000 a second");
        assertEquals(1, window.completionsPerHeartbeat(), 1e-9);
        assertEquals(List.of(
                "window 10.0 s: 100000 heartbeats answered (10000/s), 2 with an error, 3 late (previous one unanswered), 4 rejoins",
                "broker: 0.60 cores busy, idle 0.10; CPU per heartbeat 60.00 us, 50.00 us net of idle; bench: 0.30 cores",
                "heartbeat purgatory: 1000 DelayedHeartbeats parked, 1200 watch entries; 1.000 completed per heartbeat"),
                window.describe().lines().toList());
    }

    @Test
    void unknownBrokerFiguresReadNotAvailable() {
        HeartbeatWindow.Snapshot start = new HeartbeatWindow.Snapshot(0, 0, 0, 0, 0, 0, -1);
        HeartbeatWindow.Snapshot end = new HeartbeatWindow.Snapshot(1_000_000_000L, 10, 0, 0, 0, 0, -1);
        String described = new HeartbeatWindow(start, end, -1, HeartbeatPurgatory.UNKNOWN, HeartbeatPurgatory.UNKNOWN).describe();
        assertTrue(described.contains("broker: n/a cores busy, idle n/a; CPU per heartbeat n/a us, n/a us net of idle"), described);
        assertTrue(described.contains("n/a DelayedHeartbeats parked, n/a watch entries; n/a completed per heartbeat"), described);
    }

    @Test
    void rebalancesAndHeartbeatsAreOneOrTheOther() {
        Run run = Run.of("--rebalances", "1", "--heartbeat-s", "10");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("--rebalances and --heartbeat-s: one or the other"), run.err());
    }

    @Test
    @Tag("integration")
    void formsGroupsAndTimesTheirRebalancesOverSharedConnections(DemoBroker broker) {
        Run run = Run.of("--bootstrap", "localhost:" + broker.port(), "--groups", "2", "--members", "5", "--connections", "3",
                "--rebalances", "1");
        assertEquals(0, run.exitCode(), run::toString);
        List<String> lines = run.out().lines().toList();
        assertEquals("2 group(s) x 5 members = 10 members on 3 connection(s) to localhost:" + broker.port(), lines.get(0));
        assertTrue(lines.get(1).matches("formation: first JoinGroup to last JoinGroup answer [0-9.]+ median, [0-9.]+ max over 2 groups ms,"
                + " to last SyncGroup answer [0-9.]+ median, [0-9.]+ max over 2 groups ms"), lines.get(1));
        assertTrue(lines.get(2).startsWith("rebalance 1: "), run::toString);
        assertEquals(0, broker.coordinator().groupCount(), "every member left at the end");
    }

    @Test
    @Tag("integration")
    void stopsWithOneLineOnceTheBrokerHasGoneInsteadOfCountingZeros(DemoBroker broker) throws Exception {
        StringWriter out = new StringWriter(); // a StringBuffer inside: read here while the bench writes
        CommandLine command = GroupBench.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exitCode = CompletableFuture.supplyAsync(() -> command.execute("--bootstrap", "localhost:" + broker.port(),
                "--groups", "1", "--members", "3", "--connections", "1", "--heartbeat-s", "600", "--warmup-s", "0", "--idle-s", "0"));
        await().atMost(Duration.ofSeconds(60)).until(() -> out.toString().contains(" heartbeats/s")); // formed, heartbeating

        broker.close();

        Run stopped = new Run(exitCode.get(60, TimeUnit.SECONDS), out.toString(), ""); // not the 600 s window
        assertEquals(1, stopped.exitCode(), stopped::toString);
        String last = stopped.out().lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("group-bench: lost every connection to the broker ("), stopped::toString);
        assertTrue(stopped.out().lines().filter(line -> line.contains(" 0 heartbeats/s")).count() <= 1, stopped::toString);
    }

    /** One run of the command: exit code, stdout, stderr. */
    private record Run(int exitCode, String out, String err) {
        static Run of(String... args) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine command = GroupBench.commandLine();
            command.setOut(new PrintWriter(out, true));
            command.setErr(new PrintWriter(err, true));
            return new Run(command.execute(args), out.toString(), err.toString());
        }
    }
}
