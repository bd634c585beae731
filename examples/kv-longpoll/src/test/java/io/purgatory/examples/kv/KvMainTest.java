package io.purgatory.examples.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line of the example: its own options' errors, one line each with exit code 2, and its help (the shared options are ServerCommandTest's). */
class KvMainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = KvMain.commandLine();
        command.setOut(new PrintWriter(out, true));
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
        assertRefused("--max-wait must be at least 1 second, not -1", "--max-wait", "-1");
        assertRefused("--max-wait must be at least 1 second, not 0", "--max-wait", "0");
        assertRefused("--default-wait must not be negative: -5", "--default-wait", "-5");
        assertRefused("--default-wait 900 is more than --max-wait 600", "--default-wait", "900", "--max-wait", "600");
    }

    @Test
    void helpListsTheEndpointsAndOptions() {
        assertEquals(0, run("--help"));
        String help = out.toString();
        assertTrue(help.contains("GET /kv/<key>?index=N&wait=30s"), help);
        assertTrue(help.contains("--port=<port>") && help.contains("Default: 8500"), help);
        assertTrue(help.contains("--port-file"), help);
    }
}
