package io.purgatory.demo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The consume modes against an in-process broker, checking the reports' numbers. */
@Tag("integration")
class ConsumeTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private DemoClient.WithConsumer run(boolean produce, String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap";
        all[1] = "localhost:" + broker.port();
        System.arraycopy(args, 0, all, 2, args.length);
        return DemoClient.consume(CommandLineOptions.parse(all), CommandLineOptions.parseConsume(all), produce, new PrintWriter(new StringWriter()));
    }

    @Test
    void withTheProducerTheConsumerReadsEveryAckedRecordAndMeasuresEndToEndLatency() throws Exception {
        broker = brokers.get();

        DemoClient.WithConsumer run = run(true, "--requests", "300", "--rate", "300", "--acks", "-1");

        assertEquals(300, run.produced().count(Outcome.ACKED));
        ConsumeReport consumed = run.consumed();
        assertNull(consumed.disconnect());
        assertEquals(300, consumed.records(), "every acked record, once");
        assertEquals(Map.of(0, 100L, 1, 100L, 2, 100L), consumed.nextOffsets());
        assertEquals(300, consumed.endToEndMicros().getTotalCount(), "each record carried its send time");
        assertTrue(consumed.fetchesWithData() > 0);
        assertEquals(Map.of(), consumed.errors());
    }

    @Test
    void withAStalledFollowerNothingBecomesVisibleAndFetchesWaitUntilMaxWait() throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2));

        DemoClient.WithConsumer run = run(true, "--requests", "30", "--rate", "0", "--acks", "1",
                "--fetch-max-wait-ms", "200", "--drain-ms", "1000");

        assertEquals(30, run.produced().count(Outcome.ACKED), "acks=1: the leader has them");
        ConsumeReport consumed = run.consumed();
        assertEquals(0, consumed.records(), "the high watermark did not move: nothing is visible");
        assertEquals(0, consumed.fetchesWithData());
        assertTrue(consumed.fetchesEmptyAtMaxWait() >= 3, "every partition's long polls ran to max.wait.ms: " + consumed.fetchesEmptyAtMaxWait());
        assertEquals(0, consumed.fetchesEmptyEarly(), "the broker never answered a fetch before max.wait.ms");
    }

    @Test
    void consumeModeAloneReadsFromTheLogStart() throws Exception {
        broker = brokers.get();
        DemoClient.WithConsumer produced = run(true, "--requests", "30", "--rate", "0", "--acks", "-1");
        assertEquals(30, produced.consumed().records());

        DemoClient.WithConsumer run = run(false, "--from", "earliest", "--consume-ms", "600", "--fetch-max-wait-ms", "100");

        assertNull(run.produced());
        assertEquals(30, run.consumed().records());
        assertEquals(Map.of(0, 10L, 1, 10L, 2, 10L), run.consumed().nextOffsets());
        assertTrue(run.consumed().fetchesEmptyAtMaxWait() > 0, "then it long-polled at the end of each partition");
    }
}
