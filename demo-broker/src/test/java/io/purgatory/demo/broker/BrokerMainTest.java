package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line: help, option errors, a port that is taken. */
class BrokerMainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        final CommandLine command = BrokerMain.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void helpExplainsEveryKnob() {
        assertEquals(0, run("--help"));
        for (String option : new String[] {"--port", "--topic", "--replicas", "--replica-lag-ms", "--replica-lag-jitter-ms",
                "--stall-replica", "--stall-ms", "--healthy-ms", "--replica-lag-time-max-ms", "--min-insync-replicas",
                "--max-frame-bytes", "--http-port", "--http-host", "--http-port-file", "REQUEST_TIMED_OUT"}) {
            assertTrue(out.toString().contains(option), "help mentions " + option);
        }
    }

    @Test
    void aBadOptionIsReportedInTwoLinesWithExitCodeTwo() {
        assertEquals(2, run("--topic", "demo:x"));
        assertEquals("demo-broker: Invalid value for option '--topic' (NAME:PARTITIONS): expected NAME:PARTITIONS, e.g. demo:3, but was 'demo:x'"
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
    void aPortInUseIsOneLineAndExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertEquals(1, run("--port", String.valueOf(taken.getLocalPort())));
            assertTrue(err.toString().startsWith("demo-broker: cannot listen on port " + taken.getLocalPort() + ": "), err.toString());
            assertEquals(1, err.toString().lines().count(), err.toString());
        }
    }
}
