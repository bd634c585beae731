package io.purgatory.examples.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line's errors: one line each, naming the option, with exit code 2; a port in use, exit code 1. */
class KvMainTest {

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = KvMain.commandLine();
        command.setOut(new PrintWriter(new StringWriter(), true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    private void assertRefused(String expectedLine, String... args) {
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), String.join(" ", args));
        assertEquals("example-kv-longpoll: " + expectedLine + " (see --help)" + System.lineSeparator(), err.toString());
    }

    @Test
    void aBadOptionIsOneLineNamingItWithExitCodeTwo() {
        assertRefused("--port must be from 0 to 65535, not -1", "--port", "-1");
        assertRefused("--port must be from 0 to 65535, not 65536", "--port", "65536");
        assertRefused("--bind 999.0.0.1 is not an address of this machine", "--bind", "999.0.0.1");
        assertRefused("--max-wait must be at least 1 second, not -1", "--max-wait", "-1");
        assertRefused("--max-wait must be at least 1 second, not 0", "--max-wait", "0");
        assertRefused("--default-wait must not be negative: -5", "--default-wait", "-5");
        assertRefused("--default-wait 900 is more than --max-wait 600", "--default-wait", "900", "--max-wait", "600");
        assertRefused("Invalid value for option '--port': 'x' is not an int", "--port", "x");
    }

    @Test
    void aPortInUseIsOneLineWithExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            assertEquals(1, run("--bind", "127.0.0.1", "--port", Integer.toString(port)));

            String message = err.toString();
            assertEquals(1, message.lines().count(), message);
            assertTrue(message.startsWith("example-kv-longpoll: cannot listen on 127.0.0.1:" + port + ": "), message);
            assertTrue(message.contains("in use"), message);
        }
    }
}
