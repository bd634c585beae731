package io.purgatory.demo.client;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** One run of the {@code demo-client} command, as a user would see it: exit code, stdout, stderr. */
record Execution(int exitCode, String out, String err) {

    static Execution of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = ClientMain.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        int exitCode = command.execute(args);
        return new Execution(exitCode, out.toString(), err.toString());
    }

    List<String> errLines() {
        return err.lines().toList();
    }

    List<String> outLines() {
        return out.lines().toList();
    }

    /** The summary table's row for {@code label}, split on runs of two or more spaces. */
    List<String> summaryRow(String label) {
        return outLines().stream()
                .filter(line -> line.startsWith("  " + label + "  "))
                .findFirst()
                .map(line -> List.of(line.trim().split(" {2,}")))
                .orElseThrow(() -> new AssertionError("no summary row '" + label + "' in:\n" + out));
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
