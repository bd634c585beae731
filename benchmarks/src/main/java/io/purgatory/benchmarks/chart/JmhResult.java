package io.purgatory.benchmarks.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One result of a JMH run (one benchmark method at one combination of parameters), as written by
 * {@code -rf json}, reduced to one metric.
 *
 * @param benchmark the benchmark's full name, {@code package.Class.method}
 * @param threads the threads it ran with
 * @param params its {@code @Param} values
 * @param score the metric's score
 * @param error the half-width of its 99.9% confidence interval; NaN when JMH could not compute one
 * @param unit the metric's unit, as JMH names it ({@code ops/s}, {@code B/op})
 *
 * <p>Immutable, so thread-safe (the map is copied).
 */
record JmhResult(String benchmark, int threads, Map<String, String> params, double score, double error, String unit) {

    JmhResult {
        params = Map.copyOf(params);
    }

    /** JMH's name for the benchmark's own score, as opposed to a profiler's secondary metrics. */
    static final String PRIMARY = "primary";

    /** The short name: class and method, without the package. */
    String shortName() {
        int method = benchmark.lastIndexOf('.');
        int type = benchmark.lastIndexOf('.', method - 1);
        return benchmark.substring(type + 1);
    }

    /**
     * Reads the results in a JMH JSON file that have the metric: {@link #PRIMARY}, or a secondary
     * metric such as {@code gc.alloc.rate.norm} (present with {@code -prof gc}).
     */
    static List<JmhResult> read(Path file, String metric) throws IOException {
        return parse(Files.readString(file), metric);
    }

    static List<JmhResult> parse(String json, String metric) {
        List<JmhResult> results = new ArrayList<>();
        for (Object element : (List<?>) Json.parse(json)) {
            Map<?, ?> run = (Map<?, ?>) element;
            Map<?, ?> measured = PRIMARY.equals(metric)
                    ? (Map<?, ?>) run.get("primaryMetric")
                    : secondary(run, metric);
            if (measured == null) {
                continue;
            }
            results.add(new JmhResult((String) run.get("benchmark"), ((Number) run.get("threads")).intValue(),
                    params(run), number(measured.get("score")), number(measured.get("scoreError")),
                    (String) measured.get("scoreUnit")));
        }
        return results;
    }

    private static Map<?, ?> secondary(Map<?, ?> run, String metric) {
        Map<?, ?> secondaries = (Map<?, ?>) run.get("secondaryMetrics");
        return secondaries == null ? null : (Map<?, ?>) secondaries.get(metric);
    }

    private static Map<String, String> params(Map<?, ?> run) {
        Map<?, ?> params = (Map<?, ?>) run.get("params");
        if (params == null) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>();
        params.forEach((name, value) -> copy.put((String) name, String.valueOf(value)));
        return copy;
    }

    /** JMH writes non-finite numbers as strings ("NaN"). */
    private static double number(Object value) {
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        return value == null ? Double.NaN : Double.parseDouble((String) value);
    }
}
