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
    /** The broker's default settings: its initial rebalance delay (3 s) forms the group a few seconds after the start. */
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();

    @Test
    void twoConsumersAndACrashingMemberThatTheBrokerExpires(DemoBroker broker) throws Exception {
        String bootstrap = "localhost:" + broker.port();
        assertEquals(0, Execution.of("--bootstrap", bootstrap, "--requests", "90", "--rate", "0").exitCode());
        int crashAfterMs = 1_000;
        // the initial delay, the rebalance the crashing member's join causes, its crash, its session, the last rebalance
        Execution run = Execution.of("--bootstrap", bootstrap, "--group", "g", "--consumers", "2", "--crash-after-ms", String.valueOf(crashAfterMs),
                "--consume-ms", String.valueOf(3_000 + 4_000 + crashAfterMs + GroupConsume.CRASH_SESSION_TIMEOUT_MS + 7_000));
        assertEquals(0, run.exitCode(), run::toString);
        List<String> out = run.outLines();
        double assignedAt = secondsOf(out, "crashing member (own protocol code) assigned demo-", run);
        double crashedAt = secondsOf(out, "crash: stops heartbeating", run);
        assertTrue(crashedAt >= assignedAt + crashAfterMs / 1000.0 - 0.05,
                "the crash counts from the member's first assignment (rounding: 0.1 s): " + run);
        assertEquals(1, broker.coordinator().membersExpired(), "the broker expired the crashed member's session");
        long records = out.stream().filter(l -> l.matches("\\s+c\\d: \\d+ records in \\d+ assignment\\(s\\)"))
                .mapToLong(l -> Long.parseLong(l.trim().split(" ")[1])).sum();
        assertEquals(90, records, "the two consumers read every record once, the crashed member's partition after it expired: " + run);
        assertTrue(out.stream().filter(l -> l.matches("\\s+\\d+\\.\\ds  c1: .*")).allMatch(l -> l.contains(" read so far)")),
                "the per-second counts say they are running totals: " + run);
    }

    /** The time, in seconds from the start, on the first line that contains {@code text}. */
    private static double secondsOf(List<String> out, String text, Execution run) {
        String line = out.stream().filter(l -> l.contains(text)).findFirst().orElseThrow(() -> new AssertionError("no '" + text + "' in " + run));
        return Double.parseDouble(line.trim().split("s ", 2)[0]);
    }
}
