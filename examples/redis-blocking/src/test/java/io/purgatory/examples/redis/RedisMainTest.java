package io.purgatory.examples.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line's errors: one line each, naming the option, with exit code 2; a port in use, exit code 1. */
class RedisMainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = RedisMain.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    private void assertRefused(String expectedLine, String... args) {
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), String.join(" ", args));
        assertEquals("example-redis-blocking: " + expectedLine + " (see --help)" + System.lineSeparator(), err.toString());
    }

    @Test
    void aBadOptionIsOneLineNamingItWithExitCodeTwo() {
        assertRefused("--port must be from 0 to 65535, not -1", "--port", "-1");
        assertRefused("--port must be from 0 to 65535, not 65536", "--port", "65536");
        assertRefused("--bind 999.0.0.1 is not an address of this machine", "--bind", "999.0.0.1");
        assertRefused("--port-file /no/such/dir/port: no such directory /no/such/dir", "--port-file", "/no/such/dir/port");
        assertRefused("Invalid value for option '--port': 'x' is not an int", "--port", "x");
        assertRefused("Unknown option: '--nope'", "--nope");
    }

    @Test
    void helpListsTheCommandsAndOptions() {
        assertEquals(0, run("--help"));
        String help = out.toString();
        assertTrue(help.contains("BLPOP key [key ...] timeout"), help);
        assertTrue(help.contains("--port-file"), help);
    }

    @Test
    void aPortInUseIsOneLineWithExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            assertEquals(1, run("--bind", "127.0.0.1", "--port", Integer.toString(port)));

            String message = err.toString();
            assertEquals(1, message.lines().count(), message);
            assertTrue(message.startsWith("example-redis-blocking: cannot listen on 127.0.0.1:" + port + ": "), message);
            assertTrue(message.contains("in use"), message);
        }
    }
}
