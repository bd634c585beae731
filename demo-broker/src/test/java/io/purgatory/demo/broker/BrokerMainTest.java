package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line: help, option errors, a port that is taken. */
class BrokerMainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = BrokerMain.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void helpExplainsEveryKnob() {
        assertEquals(0, run("--help"));
        for (String option : new String[] {"--port", "--topic", "--replicas", "--replica-lag-ms", "--replica-lag-jitter-ms",
                "--stall-replica", "--stall-ms", "--healthy-ms", "--replica-lag-time-max-ms", "--min-insync-replicas",
                "--max-frame-bytes", "--max-in-flight-per-connection", "--max-parked-requests", "THROTTLING_QUOTA_EXCEEDED",
                "--max-connections", "--idle-timeout-ms", "--stall-after-ms", "--http-port", "--http-host", "--http-port-file",
                "--retention-bytes", "REQUEST_TIMED_OUT"}) {
            assertTrue(out.toString().contains(option), "help mentions " + option);
        }
    }

    @Test
    void aBadOptionIsReportedInTwoLinesWithExitCodeTwo() {
        assertEquals(2, run("--topic", "demo:x"));
        assertEquals("demo-broker: Invalid value for option '--topic' (NAME:PARTITIONS): expected NAME:PARTITIONS, e.g. demo:3"
                + " (NAME alone: 1 partition), but was 'demo:x'"
                + System.lineSeparator() + "Try 'demo-broker --help' for the options." + System.lineSeparator(), err.toString());
    }

    @Test
    void anImpossibleConfigurationIsAnOptionError() {
        assertEquals(2, run("--replicas", "1", "--stall-replica", "2"));
        assertTrue(err.toString().startsWith("demo-broker: stalled replica 2 does not exist: followers are 1..1"), err.toString());
    }

    @Test
    void anHttpPortOutOfRangeIsAnOptionError() {
        assertEquals(2, run("--port", "0", "--http-port", "70000"));
        assertTrue(err.toString().startsWith("demo-broker: --http-port must be -1 (off), 0 (a free port) or 1..65535, was 70000"),
                err.toString());
    }

    @Test
    void aDashboardPortInUseIsOneLineAndExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            assertEquals(1, run("--port", "0", "--http-port", String.valueOf(taken.getLocalPort())));
            assertTrue(err.toString().startsWith("demo-broker: cannot serve the dashboard on 127.0.0.1:" + taken.getLocalPort() + ": "),
                    err.toString());
            assertEquals(1, err.toString().lines().count(), err.toString());
        }
    }

    @Test
    void optionMistakesAreTwoLinesNamingTheOptionsWithoutExceptionText() {
        String topicValue = "Invalid value for option '--topic' (NAME:PARTITIONS): expected NAME:PARTITIONS, e.g. demo:3"
                + " (NAME alone: 1 partition), but was ";
        assertOptionError(topicValue + "'demo:3:4'", "--topic", "demo:3:4");
        assertOptionError(topicValue + "'demo:'", "--topic", "demo:");
        assertOptionError("topic name 'bad name!' is not valid: use 1 to 249 of a-z A-Z 0-9 . _ - (Kafka's rule)", "--topic", "bad name!:3");
        assertOptionError("--topic demo is given twice", "--topic", "demo:3", "--topic", "demo:4");
        assertOptionError("--replicas 0 leaves 1 replica(s) with the leader, fewer than --min-insync-replicas 2 (the default):"
                + " add --min-insync-replicas 1, or more --replicas", "--replicas", "0");
        assertOptionError("--min-insync-replicas 3 needs --replicas 2 or more (followers besides the leader), but --replicas is 1",
                "--replicas", "1", "--min-insync-replicas", "3");
        assertOptionError("--stall-ms does nothing without --stall-replica", "--stall-ms", "500");
        assertOptionError("--healthy-ms does nothing without --stall-replica", "--healthy-ms", "500");
        assertOptionError("--healthy-ms does nothing without --stall-ms: a stall without --stall-ms lasts until the end",
                "--stall-replica", "2", "--healthy-ms", "500");
        assertOptionError("--replica-lag-jitter-ms 6 must not exceed --replica-lag-ms 5: a follower's lag is uniform in"
                + " [lag - jitter, lag + jitter]", "--replica-lag-jitter-ms", "6");
    }

    private void assertOptionError(String message, String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), err::toString);
        assertEquals("demo-broker: " + message + System.lineSeparator() + "Try 'demo-broker --help' for the options."
                + System.lineSeparator(), err.toString());
    }

    @Test
    void aTopicNamedAloneHasOnePartition() {
        assertEquals(new BrokerMain.TopicSpec("orders", 1), new BrokerMain.TopicSpec.Converter().convert("orders"));
    }

    @Test
    void anUnwritablePortFileIsOneLineAndExitCodeOne(@TempDir Path dir) {
        Path portFile = dir.resolve("missing").resolve("broker.port");
        assertEquals(1, run("--port", "0", "--port-file", portFile.toString()));
        assertEquals("demo-broker: cannot write the port to " + portFile + ": no such directory" + System.lineSeparator(), err.toString());
    }

    @Test
    void consoleMistakesGetOneLineEach() throws Exception {
        try (DemoBroker broker = DemoBroker.start(BrokerConfig.builder().port(0).build())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            BrokerMain.readConsole(broker, new BufferedReader(new StringReader("stall\nstall x\nresume 9\nstall 1 2\nfoo\nstall 2\nquit\nstall 1\n")),
                    console);
            assertEquals(List.of("usage: stall ID, where ID is a follower replica 1..2", "usage: stall ID, where ID is a follower replica 1..2",
                    "usage: resume ID, where ID is a follower replica 1..2", "usage: stall ID, where ID is a follower replica 1..2",
                    BrokerMain.CONSOLE_COMMANDS), bytes.toString(StandardCharsets.UTF_8).lines().toList());
            broker.followers().resume(2); // stalled by 'stall 2'; 'stall 1' came after 'quit'
        }
    }

    @Test
    void aPortInUseIsOneLineAndExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertEquals(1, run("--port", String.valueOf(taken.getLocalPort())));
            assertTrue(err.toString().startsWith("demo-broker: cannot listen on port " + taken.getLocalPort() + ": "), err.toString());
            assertEquals(1, err.toString().lines().count(), err.toString());
        }
    }
}
