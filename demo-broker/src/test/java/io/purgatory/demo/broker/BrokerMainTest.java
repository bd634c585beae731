package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.TopicSpec;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line: help, option errors, a port that is taken. */
class BrokerMainTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
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
    void docsDemoMdTablesEveryOptionWithItsDefault() throws Exception {
        DocumentedOptions.assertDocumented(BrokerMain.commandLine().getCommandSpec(), "demo-broker");
    }

    @Test
    void aBadOptionIsReportedInOneLineWithExitCodeTwo() {
        assertEquals(2, run("--topic", "demo:x"));
        assertEquals("demo-broker: Invalid value for option '--topic' (NAME:PARTITIONS): expected NAME:PARTITIONS, e.g. demo:3"
                + " (NAME alone: 1 partition), but was 'demo:x' (see 'demo-broker --help')" + System.lineSeparator(), err.toString());
    }

    @Test
    void valuesOutOfRangeAreOptionErrorsNamingTheOptionAndTheValue() {
        assertOptionError("--http-port must be -1..65535, was 70000", "--port", "0", "--http-port", "70000");
        assertOptionError("--port must be 0..65535, was 65536", "--port", "65536");
        assertOptionError("--replicas must be 0..1000, was -1", "--replicas", "-1");
        assertOptionError("--replicas must be 0..1000, was 100000", "--replicas", "100000");
        assertOptionError("--stall-ms must be 0..315360000000, was -1", "--stall-replica", "2", "--stall-ms", "-1");
        assertOptionError("--max-frame-bytes must be 1024..1073741824, was 1023", "--max-frame-bytes", "1023");
        assertOptionError("--idle-timeout-ms must be 1..315360000000, was 0", "--idle-timeout-ms", "0");
        assertOptionError("--max-in-flight-per-connection must be 1..1000000, was 2147483647", "--max-in-flight-per-connection",
                String.valueOf(Integer.MAX_VALUE));
        assertOptionError("Invalid value for option '--replicas': '4294967296' is not an int", "--replicas", "4294967296");
    }

    @Test
    void aDashboardAddressThatIsNotThisMachinesIsAnOptionErrorBeforeAnythingStarts() {
        // 999.1.1.1 is no IPv4 address (so a name that does not resolve); 192.0.2.1 is TEST-NET-1, on no interface here
        assertOptionError("--http-host 999.1.1.1 is not an address of this machine", "--port", "0", "--http-port", "0",
                "--http-host", "999.1.1.1");
        assertOptionError("--http-host 192.0.2.1 is not an address of this machine", "--port", "0", "--http-port", "0",
                "--http-host", "192.0.2.1");
    }

    @Tag("integration")
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
    void optionMistakesAreOneLineNamingTheOptionsWithoutExceptionText() {
        String topicValue = "Invalid value for option '--topic' (NAME:PARTITIONS): expected NAME:PARTITIONS, e.g. demo:3"
                + " (NAME alone: 1 partition), but was ";
        assertOptionError(topicValue + "'demo:3:4'", "--topic", "demo:3:4");
        assertOptionError(topicValue + "'demo:'", "--topic", "demo:");
        assertOptionError("Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
                "--topic", "bad name!:3");
        assertOptionError("--max-partitions 10000 is below the 4000000000 partitions of the --topic options",
                "--topic", "a:2000000000", "--topic", "b:2000000000");
        assertOptionError("--topic demo is given twice", "--topic", "demo:3", "--topic", "demo:4");
        assertOptionError("--replicas 0 leaves 1 replica(s) with the leader, fewer than --min-insync-replicas 2:"
                + " lower --min-insync-replicas or raise --replicas", "--replicas", "0");
        assertOptionError("--replicas 1 leaves 2 replica(s) with the leader, fewer than --min-insync-replicas 3:"
                + " lower --min-insync-replicas or raise --replicas", "--replicas", "1", "--min-insync-replicas", "3");
        assertOptionError("--stall-replica 2 names no follower: with --replicas 1 they are 1..1", "--replicas", "1",
                "--min-insync-replicas", "1", "--stall-replica", "2");
        assertOptionError("--topic demo needs at least one partition, was 0", "--topic", "demo:0");
        assertOptionError("--stall-after-ms is for a stall that lasts: with --stall-ms, --healthy-ms is the time before the first stall",
                "--stall-replica", "2", "--stall-ms", "100", "--stall-after-ms", "100");
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
        assertEquals("demo-broker: " + message + " (see 'demo-broker --help')" + System.lineSeparator(), err.toString());
    }

    @Test
    void aTopicNamedAloneHasOnePartition() {
        assertEquals(new TopicSpec("orders", 1), new TopicSpec.Converter().convert("orders"));
    }

    @Tag("integration")
    @Test
    void anUnwritablePortFileIsOneLineAndExitCodeOne(@TempDir Path dir) {
        Path portFile = dir.resolve("missing").resolve("broker.port");
        assertEquals(1, run("--port", "0", "--port-file", portFile.toString()));
        assertEquals("demo-broker: cannot write the port to " + portFile + ": no such directory" + System.lineSeparator(), err.toString());
    }

    @Tag("integration")
    @Test
    void consoleMistakesGetOneLineEach(DemoBroker broker) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        BrokerMain.readConsole(broker, new BufferedReader(new StringReader("stall\nstall x\nresume 9\nstall 1 2\nfoo\nstall 2\nquit\nstall 1\n")),
                console);
        assertEquals(List.of("usage: stall ID, where ID is a follower replica 1..2", "usage: stall ID, where ID is a follower replica 1..2",
                "usage: resume ID, where ID is a follower replica 1..2", "usage: stall ID, where ID is a follower replica 1..2",
                BrokerMain.CONSOLE_COMMANDS), bytes.toString(StandardCharsets.UTF_8).lines().toList());
        broker.followers().resume(2); // stalled by 'stall 2'; 'stall 1' came after 'quit'
    }

    @Tag("integration")
    @Test
    void aPortInUseIsOneLineAndExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertEquals(1, run("--port", String.valueOf(taken.getLocalPort())));
            assertTrue(err.toString().startsWith("demo-broker: cannot listen on port " + taken.getLocalPort() + ": "), err.toString());
            assertEquals(1, err.toString().lines().count(), err.toString());
        }
    }

    @Test
    void aShutdownStuckPastItsBoundHaltsWithTheSigtermStatusAndOneLine() {
        CountDownLatch never = new CountDownLatch(1);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Integer> halts = new CopyOnWriteArrayList<>();

        try {
            BrokerMain.runWithin(() -> awaitUninterruptibly(never), 50, new PrintStream(bytes, true, StandardCharsets.UTF_8), halts::add);
        } finally {
            never.countDown(); // lets the stuck stop end, so the test leaves no thread behind
        }

        assertEquals(List.of(BrokerMain.SIGTERM_STATUS), halts);
        assertEquals(List.of("demo-broker: shutdown did not finish within 50 ms; exiting without it"),
                bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void aShutdownThatFinishesDoesNotHalt() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Integer> halts = new CopyOnWriteArrayList<>();
        AtomicBoolean stopped = new AtomicBoolean();

        BrokerMain.runWithin(() -> stopped.set(true), BrokerMain.SHUTDOWN_BOUND_MS, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                halts::add);

        assertTrue(stopped.get());
        assertEquals(List.of(), halts);
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // a stuck close ignores interrupts too
            }
        }
    }
}
