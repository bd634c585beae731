package io.purgatory.benchmarks.chart;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The chart step: reads JMH JSON result files ({@code -rf json -rff <file>}) and writes one PNG line
 * chart per benchmark method and thread count: a metric by pending count, one line per timer. Runs
 * headless. See {@code --help} and docs/benchmarks.md. Writes to the command line's out and err
 * writers; a file it cannot read or chart is one line on err and exit status 1, not a stack trace.
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
                    + "docs/benchmarks/results/add-cancel.json docs/benchmarks/results/add-expire.json",
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
        List<Panel> panels;
        try {
            panels = Panel.group(results, xParam, seriesParam);
        } catch (IllegalArgumentException e) {
            err.println("jmh-chart: " + e.getMessage());
            return 1;
        }
        Files.createDirectories(outDirectory);
        String suffix = JmhResult.PRIMARY.equals(metric) ? ".png" : "-" + metric + ".png";
        for (Panel panel : panels) {
            Path file = outDirectory.resolve(panel.fileName(suffix));
            ImageIO.write(LineChart.render(panel), "png", file.toFile());
            out.println(file);
        }
        return 0;
    }

    /** Jackson's messages go on over several lines with the source location. */
    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
