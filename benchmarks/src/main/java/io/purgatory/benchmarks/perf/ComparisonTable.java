package io.purgatory.benchmarks.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/**
 * A plain-text table of metrics, one column per purgatory's result and, when there are exactly two,
 * a last column with the ratio of the first to the second ("ours/kafka"): below 1 means the first
 * is smaller (less CPU, less latency, less memory), above 1 larger.
 *
 * <p>Not thread-safe: built and rendered by one thread.
 *
 * @param <R> the results compared
 */
final class ComparisonTable<R> {

    private final List<String> columns;
    private final List<R> results;
    private final List<List<String>> rows = new ArrayList<>();

    /** @param columns the results' labels, in the same order as the results */
    ComparisonTable(List<String> columns, List<R> results) {
        if (columns.size() != results.size()) {
            throw new IllegalArgumentException(columns.size() + " columns for " + results.size() + " results");
        }
        this.columns = List.copyOf(columns);
        this.results = List.copyOf(results);
    }

    /** Adds a row: the metric of every result, formatted, and their ratio. */
    ComparisonTable<R> row(String metric, ToDoubleFunction<R> value, DoubleFunction<String> format) {
        List<String> row = new ArrayList<>();
        row.add(metric);
        double[] values = results.stream().mapToDouble(value).toArray();
        for (double v : values) {
            row.add(format.apply(v));
        }
        if (values.length == 2) {
            row.add(ratio(values[0], values[1]));
        }
        rows.add(row);
        return this;
    }

    /** The table: metric names left-aligned, figures right-aligned, columns two spaces apart. */
    String render() {
        List<List<String>> lines = new ArrayList<>();
        List<String> header = new ArrayList<>();
        header.add("");
        header.addAll(columns);
        if (columns.size() == 2) {
            header.add(columns.get(0) + "/" + columns.get(1));
        }
        lines.add(header);
        lines.addAll(rows);
        int[] widths = new int[header.size()];
        for (List<String> line : lines) {
            for (int i = 0; i < line.size(); i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (List<String> line : lines) {
            out.append(line.get(0)).append(" ".repeat(widths[0] - line.get(0).length()));
            for (int i = 1; i < line.size(); i++) {
                out.append("  ").append(" ".repeat(widths[i] - line.get(i).length())).append(line.get(i));
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    /** first / second with two decimals, or {@code -} when the ratio means nothing (0 or NaN below). */
    static String ratio(double first, double second) {
        return second == 0 ? "-" : Figures.ratio(first / second);
    }
}
