package io.purgatory.demo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs against an in-process broker, checking the report's numbers rather than its text. */
@Tag("integration")
class DemoClientTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private RunReport run(ClientOptions options) throws Exception {
        return DemoClient.run(options, new PrintWriter(new StringWriter()), new CompletableFuture<>());
    }

    private ClientOptions options(int requests, short acks, int timeoutMs) {
        return options(requests, acks, timeoutMs, 500);
    }

    private ClientOptions options(int requests, short acks, int timeoutMs, int concurrency) {
        return CommandLineOptions.parse("--bootstrap", "localhost:" + broker.port(), "--requests", "" + requests, "--rate", "0",
                "--concurrency", "" + concurrency, "--acks", "" + acks, "--timeout-ms", "" + timeoutMs);
    }

    @Test
    void withAStalledReplicaEveryAcksAllRequestWaitsAtLeastItsTimeout() throws Exception {
        broker = brokers.start(BrokerConfig.builder().followers(2).stallReplica(2));

        RunReport report = run(options(20, (short) -1, 200));

        assertTrue(report.complete());
        assertEquals(20, report.sent());
        assertEquals(1, report.outcomes().size(), report.outcomes()::toString);
        RunReport.OutcomeSummary timedOut = report.outcomes().get(0);
        assertEquals(Outcome.TIMED_OUT, timedOut.outcome());
        assertEquals(20, timedOut.count());
        assertTrue(timedOut.minMicros() >= TimeUnit.MILLISECONDS.toMicros(200),
                "the broker answers REQUEST_TIMED_OUT no earlier than timeoutMs after it got the request: " + timedOut.minMicros() + " us");
        assertEquals(20, timedOut.latenciesMicros().getTotalCount());
    }

    @Test
    void acksOneIsAnsweredAfterTheLeaderAppendDespiteTheStall() throws Exception {
        broker = brokers.start(BrokerConfig.builder().followers(2).stallReplica(2));

        RunReport report = run(options(20, (short) 1, 200));

        assertTrue(report.complete());
        assertEquals(20, report.count(Outcome.ACKED));
        assertEquals(20, report.outcomes().stream().mapToLong(RunReport.OutcomeSummary::count).sum());
    }

    @Test
    void acksZeroRequestsCountAsSentAndReachTheBroker() throws Exception {
        broker = brokers.start(BrokerConfig.builder().topic("demo", 2));

        RunReport report = run(options(10, (short) 0, 200));

        assertTrue(report.complete());
        assertEquals(10, report.count(Outcome.SENT_NO_ACK));
        assertNull(report.outcomes().get(0).latenciesMicros(), "no response, so no latency");
        // the records arrive although nobody answers: wait for the broker to have read them
        org.awaitility.Awaitility.await().until(() -> broker.replicaManager().partition("demo", 0).leaderEndOffset()
                + broker.replicaManager().partition("demo", 1).leaderEndOffset() == 10);
    }

    @Test
    void concurrencyBoundsRequestsInFlight() throws Exception {
        broker = brokers.start(BrokerConfig.builder().followers(2).stallReplica(2));
        ClientOptions options = options(6, (short) -1, 200, 2);

        RunReport report = run(options);

        // two at a time, each parked for the 200 ms timeout: three rounds, so the run takes 600 ms or more
        assertEquals(6, report.count(Outcome.TIMED_OUT));
        assertTrue(report.elapsedNanos() >= TimeUnit.MILLISECONDS.toNanos(600), report.elapsedNanos() + " ns");
    }
}
