package io.purgatory.demo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Against a {@link ScriptedBroker}: older Produce versions, error codes, silence and a dropped
 * connection. The client must give every request an outcome and never hang.
 */
@Tag("integration")
class MisbehavingBrokerTest {

    @Test
    void olderProduceVersionNamesTheTopicInsteadOfItsId() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 9, ScriptedBroker.Produce.ANSWER, Errors.NONE)) {
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "5", "--rate", "0");

            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.outLines().get(0).endsWith("(Produce v9, Metadata v13)"), run::toString);
            assertEquals("5", run.summaryRow("acked").get(1), run::toString);
            assertEquals(5, broker.produces.size());
            for (var produce : broker.produces) {
                assertEquals(9, produce.version());
                TopicProduceData topic = produce.data().topicData().iterator().next();
                assertEquals(ScriptedBroker.TOPIC, topic.name());
            }
        }
    }

    @Test
    void produceV13AddressesTheTopicById() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 13, ScriptedBroker.Produce.ANSWER, Errors.NONE)) {
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "3", "--rate", "0");

            assertEquals(0, run.exitCode(), run::toString);
            for (var produce : broker.produces) {
                assertEquals(13, produce.version());
                Uuid id = produce.data().topicData().iterator().next().topicId();
                assertEquals(broker.topicId, id);
            }
        }
    }

    @Test
    void otherErrorCodesAreCountedByName() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 13, ScriptedBroker.Produce.ANSWER, Errors.NOT_ENOUGH_REPLICAS)) {
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "4", "--rate", "0");

            assertEquals(0, run.exitCode(), "the broker answered every request: " + run);
            assertEquals("4", run.summaryRow("NOT_ENOUGH_REPLICAS").get(1), run::toString);
            assertTrue(run.out().contains("* NOT_ENOUGH_REPLICAS"), "the histogram legend names it: " + run);
        }
    }

    @Test
    void silenceEndsAsNoResponseAfterTimeoutPlusGrace() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 13, ScriptedBroker.Produce.IGNORE, Errors.NONE)) {
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "4", "--rate", "0",
                    "--timeout-ms", "50", "--grace-ms", "100");

            assertEquals(1, run.exitCode(), run::toString);
            assertEquals(List.of("demo-client: 4 request(s) got no response within 150 ms (--timeout-ms + --grace-ms)"), run.errLines());
            List<String> row = run.summaryRow("no response");
            assertEquals("4", row.get(1), run::toString);
            assertTrue(Double.parseDouble(row.get(2)) >= 150, "min latency is the deadline: " + run);
        }
    }

    @Test
    void aDroppedConnectionEndsTheRequestsInFlightAsDisconnected() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 13, ScriptedBroker.Produce.CLOSE_CONNECTION, Errors.NONE)) {
            // rate 0: all five are sent in one pass of the event loop, before it can see the close; the
            // broker may close while they are being written, so the reason and count in flight vary
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "5", "--rate", "0");

            assertEquals(1, run.exitCode(), run::toString);
            assertEquals(1, run.errLines().size(), run::toString);
            assertTrue(run.errLines().get(0).matches("demo-client: lost the connection to " + broker.bootstrap()
                    + " \\((closed by the broker|write failed: .+|Connection reset by peer)\\) with [0-5] request\\(s\\) in flight; 0 not sent"),
                    run::toString);
            assertEquals("5", run.summaryRow("disconnected").get(1), run::toString);
        }
    }

    @Test
    void anOldBrokerWithoutACommonProduceVersionIsRefusedClearly() throws Exception {
        try (ScriptedBroker broker = new ScriptedBroker((short) 2, ScriptedBroker.Produce.ANSWER, Errors.NONE)) {
            Execution run = Execution.of("--bootstrap", broker.bootstrap(), "--requests", "1");

            assertEquals(1, run.exitCode(), run::toString);
            assertEquals(List.of("demo-client: no common Produce version with " + broker.bootstrap() + ": it speaks v0-v2, this client v3-v13"),
                    run.errLines());
        }
    }
}
