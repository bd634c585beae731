package io.purgatory.benchmarks.chart;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jfree.chart.JFreeChart;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The chart step: reads JMH JSON result files ({@code -rf json -rff <file>}) and writes one PNG line
 * chart per benchmark method and thread count (and value of every other parameter): a metric by
 * pending count, one line per timer. Runs headless; JFreeChart draws ({@link Charts}). See
 * {@code --help} and docs/benchmarks.md. Writes to the command line's out and err writers; a file
 * it cannot read or chart is one line on err and exit status 1, not a stack trace.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "jmh-chart", showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Writes one PNG line chart per benchmark method and thread count found in JMH JSON result files: "
                    + "the metric (y) by the --x parameter (x, log scale), one line per value of the --series "
                    + "parameter, with the 99.9%% confidence interval as error bars.",
            ""},
        footer = {
            "",
            "Example:",
            "  java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.chart.JmhChart --out docs/benchmarks "
                    + "benchmarks/results/timer/add-expire.json",
            "  ... --metric gc.alloc.rate.norm    (bytes allocated per operation, from -prof gc)"})
public final class JmhChart implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Parameters(arity = "1..*", paramLabel = "RESULTS.json", description = "JMH result files written with -rf json.")
    private List<Path> resultFiles;

    @Option(names = "--out", description = "Directory to write the charts to (created if missing).")
    private Path outDirectory = Path.of("charts");

    @Option(names = "--metric", description = "'primary' for the benchmark's score (ops/s), or a secondary metric's name "
            + "such as gc.alloc.rate.norm.")
    private String metric = JmhResult.PRIMARY;

    @Option(names = "--x", description = "The numeric @Param along the x axis.")
    private String xParam = "pending";

    @Option(names = "--series", description = "The @Param whose values are the lines.")
    private String seriesParam = "timer";

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new JmhChart()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<JmhResult> results = new ArrayList<>();
        for (Path file : resultFiles) {
            try {
                results.addAll(JmhResult.read(file, metric));
            } catch (NoSuchFileException e) {
                err.println("jmh-chart: no such file: " + file);
                return 1;
            } catch (IOException e) {
                err.println("jmh-chart: cannot read " + file + ": " + firstLine(e.getMessage()));
                return 1;
            }
        }
        if (results.isEmpty()) {
            err.println("jmh-chart: no results with metric " + metric + " in " + resultFiles);
            return 1;
        }
        List<JFreeChart> charts;
        try {
            charts = charts(results, xParam, seriesParam);
        } catch (IllegalArgumentException e) {
            err.println("jmh-chart: " + e.getMessage());
            return 1;
        }
        String suffix = JmhResult.PRIMARY.equals(metric) ? ".png" : "-" + metric + ".png";
        for (JFreeChart chart : charts) {
            Path file = outDirectory.resolve(fileName(chart, suffix));
            Charts.writePng(chart, file);
            out.println(file);
        }
        return 0;
    }

    /**
     * One chart per benchmark method, thread count and value of every other parameter, in the order
     * they first appear: the score by {@code xParam}, one line per value of {@code seriesParam} (in
     * the order they first appear), with the confidence interval as error bars.
     *
     * @throws IllegalArgumentException if a result lacks either parameter
     */
    static List<JFreeChart> charts(List<JmhResult> results, String xParam, String seriesParam) {
        Map<String, Map<String, YIntervalSeries>> byChart = new LinkedHashMap<>();
        Map<String, String> units = new LinkedHashMap<>();
        for (JmhResult result : results) {
            if (!result.params().containsKey(xParam) || !result.params().containsKey(seriesParam)) {
                throw new IllegalArgumentException(result.benchmark() + " has no parameter " + xParam + " or " + seriesParam);
            }
            String title = title(result, xParam, seriesParam);
            units.putIfAbsent(title, result.unit());
            String name = result.params().get(seriesParam);
            YIntervalSeries series = byChart.computeIfAbsent(title, k -> new LinkedHashMap<>())
                    .computeIfAbsent(name, YIntervalSeries::new);
            Charts.add(series, Double.parseDouble(result.params().get(xParam)), result.score(), result.error(), Charts.YScale.LINEAR);
        }
        List<JFreeChart> charts = new ArrayList<>();
        byChart.forEach((title, lines) -> {
            YIntervalSeriesCollection data = new YIntervalSeriesCollection();
            lines.values().forEach(data::addSeries);
            charts.add(Charts.lineChart(title, xParam, units.get(title), data, Charts.YScale.LINEAR));
        });
        return charts;
    }

    /** For example {@code TimerAddCancelBenchmark.oneThread, 1 thread, delay=5}. */
    private static String title(JmhResult result, String xParam, String seriesParam) {
        String others = result.params().entrySet().stream()
                .filter(p -> !p.getKey().equals(xParam) && !p.getKey().equals(seriesParam))
                .map(p -> p.getKey() + "=" + p.getValue())
                .collect(Collectors.joining(", "));
        String threads = result.threads() + (result.threads() == 1 ? " thread" : " threads");
        return result.shortName() + ", " + threads + (others.isEmpty() ? "" : ", " + others);
    }

    /** A file name for a chart: its title's letters, digits, dots, equals signs and dashes, then {@code suffix}. */
    static String fileName(JFreeChart chart, String suffix) {
        return Charts.title(chart).replaceAll("[^A-Za-z0-9.=-]+", "_") + suffix;
    }

    /** Jackson's messages go on over several lines with the source location. */
    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
