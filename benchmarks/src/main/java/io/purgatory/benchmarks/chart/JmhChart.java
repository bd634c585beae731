package io.purgatory.benchmarks.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The chart step: reads JMH JSON result files ({@code -rf json -rff <file>}) and writes one PNG line
 * chart per benchmark method and thread count: a metric by pending count, one line per timer. Runs
 * headless. See {@code --help} and docs/benchmarks.md.
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "jmh-chart", showDefaultValues = true, usageHelpWidth = 110,
        description = {
            "Writes one PNG line chart per benchmark method and thread count found in JMH JSON result files: "
                    + "the metric (y) by the --x parameter (x, log scale), one line per value of the --series "
                    + "parameter, with the 99.9% confidence interval as error bars.",
            ""},
        footer = {
            "",
            "Example:",
            "  java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.chart.JmhChart --out docs/charts "
                    + "add-cancel.json add-expire.json",
            "  ... --metric gc.alloc.rate.norm    (bytes allocated per operation, from -prof gc)"})
public final class JmhChart implements Callable<Integer> {

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
        List<JmhResult> results = new ArrayList<>();
        for (Path file : resultFiles) {
            results.addAll(JmhResult.read(file, metric));
        }
        if (results.isEmpty()) {
            System.err.println("no results with metric " + metric + " in " + resultFiles);
            return 1;
        }
        Files.createDirectories(outDirectory);
        String suffix = JmhResult.PRIMARY.equals(metric) ? ".png" : "-" + metric + ".png";
        for (Panel panel : Panel.group(results, xParam, seriesParam)) {
            Path file = outDirectory.resolve(panel.fileName(suffix));
            ImageIO.write(LineChart.render(panel), "png", file.toFile());
            System.out.println(file);
        }
        return 0;
    }
}
