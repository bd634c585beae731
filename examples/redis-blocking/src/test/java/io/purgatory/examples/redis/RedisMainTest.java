package io.purgatory.examples.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line of the example: an error names the example in one line with exit code 2; its help (the shared options are ServerCommandTest's). */
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
        assertRefused("Unknown option: '--nope'", "--nope");
        assertRefused("--port must be from 0 to 65535, not -1", "--port", "-1");
    }

    @Test
    void helpListsTheCommandsAndOptions() {
        assertEquals(0, run("--help"));
        String help = out.toString();
        assertTrue(help.contains("BLPOP key [key ...] timeout"), help);
        assertTrue(help.contains("--port-file"), help);
        assertTrue(help.contains("Default: 6379"), help);
    }
}
