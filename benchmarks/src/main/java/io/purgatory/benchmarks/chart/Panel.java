package io.purgatory.benchmarks.chart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One chart: the results of one benchmark method at one thread count (and one value of every other
 * parameter), one {@link Series} per value of the series parameter, x being the x parameter.
 *
 * @param title for example {@code TimerAddCancelBenchmark.oneThread, 1 thread}
 * @param xLabel the x parameter's name
 * @param unit the metric's unit, the y axis's label
 * @param series in the order they first appear in the results
 */
record Panel(String title, String xLabel, String unit, List<Series> series) {

    /** A line: its points sorted by x. */
    record Series(String name, List<Point> points) {
    }

    /** A score at one x, with the half-width of its confidence interval (NaN if unknown). */
    record Point(double x, double y, double error) {
    }

    /**
     * Groups results into panels, in the order the benchmarks first appear.
     *
     * @param xParam the numeric parameter along the x axis, e.g. {@code pending}
     * @param seriesParam the parameter that tells the lines apart, e.g. {@code timer}
     * @throws IllegalArgumentException if a result lacks either parameter
     */
    static List<Panel> group(List<JmhResult> results, String xParam, String seriesParam) {
        Map<String, List<JmhResult>> byPanel = new LinkedHashMap<>();
        for (JmhResult result : results) {
            if (!result.params().containsKey(xParam) || !result.params().containsKey(seriesParam)) {
                throw new IllegalArgumentException(result.benchmark() + " has no parameter " + xParam + " or " + seriesParam);
            }
            byPanel.computeIfAbsent(title(result, xParam, seriesParam), k -> new ArrayList<>()).add(result);
        }
        List<Panel> panels = new ArrayList<>();
        byPanel.forEach((title, members) -> panels.add(panel(title, members, xParam, seriesParam)));
        return panels;
    }

    private static Panel panel(String title, List<JmhResult> members, String xParam, String seriesParam) {
        Map<String, List<Point>> bySeries = new LinkedHashMap<>();
        for (JmhResult result : members) {
            Point point = new Point(Double.parseDouble(result.params().get(xParam)), result.score(), result.error());
            bySeries.computeIfAbsent(result.params().get(seriesParam), k -> new ArrayList<>()).add(point);
        }
        List<Series> series = new ArrayList<>();
        bySeries.forEach((name, points) -> {
            points.sort(Comparator.comparingDouble(Point::x));
            series.add(new Series(name, List.copyOf(points)));
        });
        return new Panel(title, xParam, members.get(0).unit(), List.copyOf(series));
    }

    private static String title(JmhResult result, String xParam, String seriesParam) {
        String others = result.params().entrySet().stream()
                .filter(p -> !p.getKey().equals(xParam) && !p.getKey().equals(seriesParam))
                .map(p -> p.getKey() + "=" + p.getValue())
                .collect(Collectors.joining(", "));
        String threads = result.threads() + (result.threads() == 1 ? " thread" : " threads");
        return result.shortName() + ", " + threads + (others.isEmpty() ? "" : ", " + others);
    }

    /** A file name for this panel: the title's letters, digits, dots and dashes. */
    String fileName(String suffix) {
        return title.replaceAll("[^A-Za-z0-9.=-]+", "_") + suffix;
    }
}
