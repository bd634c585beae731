package io.purgatory.demo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code demo-client --group}: real consumers share the topic, and a member that crashes (stops
 * heartbeating, connection open) is expired by the broker, after which the others hold every
 * partition and have read every record.
 */
@Tag("integration")
class GroupConsumeTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.groupInitialRebalanceDelayMs(500));

    @Test
    void twoConsumersAndACrashingMemberThatTheBrokerExpires(DemoBroker broker) throws Exception {
        String bootstrap = "localhost:" + broker.port();
        assertEquals(0, Execution.of("--bootstrap", bootstrap, "--requests", "90", "--rate", "0").exitCode());
        Execution run = Execution.of("--bootstrap", bootstrap, "--group", "g", "--consumers", "2", "--crash-after-ms", "3000",
                "--consume-ms", String.valueOf(3_000 + GroupConsume.CRASH_SESSION_TIMEOUT_MS + 7_000));
        assertEquals(0, run.exitCode(), run::toString);
        List<String> out = run.outLines();
        assertTrue(out.stream().anyMatch(l -> l.contains("crashing member (own protocol code) assigned demo-")), run::toString);
        assertTrue(out.stream().anyMatch(l -> l.contains("crash: stops heartbeating")), run::toString);
        assertEquals(1, broker.coordinator().membersExpired(), "the broker expired the crashed member's session");
        long records = out.stream().filter(l -> l.matches("\\s+c\\d: \\d+ records in \\d+ assignment\\(s\\)"))
                .mapToLong(l -> Long.parseLong(l.trim().split(" ")[1])).sum();
        assertEquals(90, records, "the two consumers read every record once, the crashed member's partition after it expired: " + run);
    }
}
