package io.purgatory.benchmarks.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.jfree.chart.JFreeChart;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The chart step for CSV results, such as those of {@code purgatory-perf --mode HWM --csv}: one PNG
 * line chart of a column (y) against another (x, log scale), one line per value of a third column.
 * Repeated runs of one line at one x are drawn as their median. Runs headless; JFreeChart draws
 * ({@link Charts}).
 *
 * <p>Not thread-safe; a command-line main. {@link #chart} is stateless.
 */
@Command(name = "csv-chart", showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Writes one PNG line chart from CSV files with a header line: the --y column against the --x column "
                    + "(log scale), one line per value of the --series column. Several rows for one line and x "
                    + "(repeated runs) are drawn as their median.",
            ""},
        footer = {
            "",
            "Example (the high-watermark workload's CPU per request against the lag):",
            "  java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.chart.CsvChart "
                    + "--out docs/benchmarks/hwm-cpu-per-request.png benchmarks/results/purgatory/hwm.csv"})
public final class CsvChart implements Callable<Integer> {

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Parameters(arity = "1..*", paramLabel = "RESULTS.csv", description = "CSV files, each with the same header line.")
    private List<Path> files;

    @Option(names = "--out", description = "The PNG file to write (its directory is created if missing).")
    private Path out = Path.of("hwm-cpu-per-request.png");

    @Option(names = "--x", description = "The numeric column along the x axis.")
    private String x = "lag";

    @Option(names = "--y", description = "The numeric column along the y axis.")
    private String y = "process_cpu_us_per_request";

    @Option(names = "--series", description = "The column whose values are the lines.")
    private String series = "purgatory";

    @Option(names = "--title", description = "The chart's title.")
    private String title = "High-watermark workload: CPU per request (whole process) against the lag";

    @Option(names = "--x-label", description = "The x axis's label.")
    private String xLabel = "lag: produce requests parked per partition";

    @Option(names = "--unit", description = "The y axis's label.")
    private String unit = "CPU per request (µs)";

    @Option(names = "--y-scale", description = "LINEAR (from zero) or LOG (a tick per decade: for values that span decades, such as CPU"
            + " per request across lags). Default: ${DEFAULT-VALUE}.")
    private Charts.YScale yScale = Charts.YScale.LOG;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new CsvChart()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        List<String> lines = new ArrayList<>();
        for (Path file : files) {
            List<String> read = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (!lines.isEmpty() && !read.isEmpty()) {
                if (!read.get(0).equals(lines.get(0))) {
                    System.err.println(file + ": its header differs from " + files.get(0) + "'s");
                    return 1;
                }
                read = read.subList(1, read.size());
            }
            lines.addAll(read);
        }
        JFreeChart chart;
        try {
            chart = chart(lines, x, y, series, title, xLabel, unit, yScale);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        Charts.writePng(chart, out);
        System.out.println(out);
        return 0;
    }

    /**
     * The chart of CSV lines, the first being the header.
     *
     * @throws IllegalArgumentException if a column is missing, a line has another number of fields
     *     than the header, a figure is not a number, or there is no line to draw
     */
    static JFreeChart chart(List<String> lines, String x, String y, String series, String title, String xLabel,
                            String unit, Charts.YScale yScale) {
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("no CSV lines");
        }
        List<String> header = Arrays.asList(lines.get(0).split(",", -1));
        int xColumn = column(header, x);
        int yColumn = column(header, y);
        int seriesColumn = column(header, series);
        Map<String, Map<Double, List<Double>>> bySeries = new LinkedHashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] fields = lines.get(i).split(",", -1);
            if (fields.length != header.size()) {
                throw new IllegalArgumentException("line " + (i + 1) + " has " + fields.length + " fields, the header "
                        + header.size());
            }
            double value = number(fields[yColumn], i);
            if (Double.isFinite(value)) {
                bySeries.computeIfAbsent(fields[seriesColumn], k -> new TreeMap<>())
                        .computeIfAbsent(number(fields[xColumn], i), k -> new ArrayList<>()).add(value);
            }
        }
        if (bySeries.isEmpty()) {
            throw new IllegalArgumentException("no figures in column " + y);
        }
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        bySeries.forEach((name, points) -> {
            YIntervalSeries line = new YIntervalSeries(name);
            points.forEach((at, values) -> Charts.add(line, at, median(values), Double.NaN, yScale));
            data.addSeries(line);
        });
        return Charts.lineChart(title, xLabel, unit, data, yScale);
    }

    private static int column(List<String> header, String name) {
        int index = header.indexOf(name);
        if (index < 0) {
            throw new IllegalArgumentException("no column " + name + " in the header " + String.join(",", header));
        }
        return index;
    }

    private static double number(String field, int line) {
        try {
            return Double.parseDouble(field);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("line " + (line + 1) + ": not a number: " + field, e);
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
