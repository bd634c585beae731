package io.purgatory.examples.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A server's command line: one line per bad option, naming it, with exit code 2; a port in use or an unwritable port file, exit code 1. */
class ServerCommandTest {

    @Command(name = "example-test", mixinStandardHelpOptions = true, showDefaultValues = true)
    static final class TestCommand extends ServerCommand {
        private ExampleServer started;

        TestCommand() {
            super("example-test", 7000);
        }

        @Override
        protected ExampleServer start(InetSocketAddress address) throws IOException, InterruptedException {
            started = new EventLoopServer("test server", address, new ChannelInboundHandlerAdapter(), () -> { });
            return started;
        }

        @Override
        protected String listeningLine(String bind, int port) {
            return "listening on " + port;
        }
    }

    /** The command last run: a fresh one each run, as picocli takes an option's default from the object it is given. */
    private TestCommand command = new TestCommand();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        command = new TestCommand();
        CommandLine commandLine = ServerCommand.commandLine(command);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private void assertRefused(String expectedLine, String... args) {
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), String.join(" ", args));
        assertEquals("example-test: " + expectedLine + " (see --help)" + System.lineSeparator(), err.toString());
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
    void helpShowsTheDefaultPort() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("--port=<port>"), out.toString());
        assertTrue(out.toString().contains("Default: 7000"), out.toString());
    }

    @Test
    void aPortInUseIsOneLineWithExitCodeOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();

            assertEquals(1, run("--bind", "127.0.0.1", "--port", Integer.toString(port)));

            String message = err.toString();
            assertEquals(1, message.lines().count(), message);
            assertTrue(message.startsWith("example-test: cannot listen on 127.0.0.1:" + port + ": "), message);
            assertTrue(message.contains("in use"), message);
        }
    }

    @Test
    void aPortFileThatCannotBeWrittenIsOneLineWithExitCodeOneAndNothingLeftListening(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("port");
        Files.createDirectory(file); // a directory where the file should go: the move onto it fails

        assertEquals(1, run("--bind", "127.0.0.1", "--port", "0", "--port-file", file.toString()));

        String message = err.toString();
        assertEquals(1, message.lines().count(), message);
        assertTrue(message.startsWith("example-test: cannot write --port-file " + file + ": "), message);
        int port = command.started.port();
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(port, again.getLocalPort(), "the server's port is free again");
        }
    }
}
