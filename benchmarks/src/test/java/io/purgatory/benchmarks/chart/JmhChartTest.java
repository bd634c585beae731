package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class JmhChartTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return new CommandLine(new JmhChart()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
    }

    @Test
    void helpPrintsTheUsageWithoutPicocliWarnings() {
        // picocli reports a description it cannot format (an unescaped %) on System.err itself
        ByteArrayOutputStream systemErr = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(systemErr, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, run("--help"));
        } finally {
            System.setErr(saved);
        }

        assertTrue(out.toString().replaceAll("\\s+", " ").contains("the 99.9% confidence interval"), out::toString);
        assertEquals("", systemErr.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString());
    }

    @Test
    void aMissingInputFileIsOneLineOnStderrAndExitStatusOne(@TempDir Path dir) {
        Path missing = dir.resolve("missing.json");

        assertEquals(1, run("--out", dir.resolve("charts").toString(), missing.toString()));

        assertEquals("jmh-chart: no such file: " + missing + System.lineSeparator(), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void aFileThatIsNotJsonIsOneLineOnStderr(@TempDir Path dir) throws IOException {
        Path broken = Files.writeString(dir.resolve("broken.json"), "[{\"benchmark\": \"a\\");

        assertEquals(1, run("--out", dir.toString(), broken.toString()));

        assertTrue(err.toString().startsWith("jmh-chart: cannot read " + broken + ": "), err::toString);
        assertEquals(1, err.toString().lines().count(), err::toString);
    }

    @Test
    void writesOneChartPerPanelAndNamesEachFile(@TempDir Path dir) throws IOException {
        Path results = Files.writeString(dir.resolve("results.json"), JmhResultTest.fixture());
        Path charts = dir.resolve("charts");

        assertEquals(0, run("--out", charts.toString(), results.toString()), err::toString);

        assertEquals(2, out.toString().lines().count(), out::toString);
        out.toString().lines().forEach(file -> assertTrue(Files.isRegularFile(Path.of(file)), file));
        assertEquals("", err.toString());
    }
}
