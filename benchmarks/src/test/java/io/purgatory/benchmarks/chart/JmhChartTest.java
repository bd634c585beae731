package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.IntervalXYDataset;
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

        assertEquals(List.of(charts.resolve("TimerAddCancelBenchmark.oneThread_1_thread.png").toString(),
                charts.resolve("TimerAddCancelBenchmark.twoThreads_2_threads.png").toString()), out.toString().lines().toList());
        for (String file : out.toString().lines().toList()) {
            BufferedImage image = ImageIO.read(new File(file));
            assertEquals(Charts.WIDTH, image.getWidth(), file);
        }
        assertEquals("", err.toString());
    }

    @Test
    void oneChartPerBenchmarkMethodAndThreadCountOneLinePerTimerWithErrorBars() throws IOException {
        List<JFreeChart> charts = JmhChart.charts(JmhResult.parse(JmhResultTest.fixture(), JmhResult.PRIMARY), "pending", "timer");

        assertEquals(List.of("TimerAddCancelBenchmark.oneThread, 1 thread", "TimerAddCancelBenchmark.twoThreads, 2 threads"),
                charts.stream().map(Charts::title).toList());
        XYPlot oneThread = charts.get(0).getXYPlot();
        assertEquals("pending (log scale)", oneThread.getDomainAxis().getLabel());
        assertEquals("ops/s", oneThread.getRangeAxis().getLabel());
        IntervalXYDataset data = (IntervalXYDataset) oneThread.getDataset();
        assertEquals(List.of("PURGATORY", "KAFKA"), List.of(data.getSeriesKey(0), data.getSeriesKey(1)));
        assertEquals(List.of("PURGATORY 1000.0 9500000.0", "PURGATORY 1000000.0 6500000.0"),
                CsvChartTest.points(data).subList(0, 2), "sorted by x");
        assertEquals(9.25e6, data.getStartYValue(0, 0), "the confidence interval as an error bar");
        assertEquals(9.75e6, data.getEndYValue(0, 0));
    }

    @Test
    void otherParametersSplitCharts() {
        List<JmhResult> results = List.of(
                new JmhResult("p.C.m", 1, Map.of("pending", "1", "timer", "A", "delay", "5"), 1, 0, "ops/s"),
                new JmhResult("p.C.m", 1, Map.of("pending", "1", "timer", "A", "delay", "9"), 2, 0, "ops/s"));

        List<JFreeChart> charts = JmhChart.charts(results, "pending", "timer");

        assertEquals(List.of("C.m, 1 thread, delay=5", "C.m, 1 thread, delay=9"), charts.stream().map(Charts::title).toList());
        assertEquals("C.m_1_thread_delay=5.png", JmhChart.fileName(charts.get(0), ".png"));
    }

    @Test
    void aResultWithoutTheAxesParametersIsAnError() {
        List<JmhResult> results = List.of(new JmhResult("p.C.m", 1, Map.of("timer", "A"), 1, 0, "ops/s"));

        assertThrows(IllegalArgumentException.class, () -> JmhChart.charts(results, "pending", "timer"));
    }
}
