package io.purgatory.benchmarks.chart;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

    /** Thread-safe once configured; rejects anything after the document. */
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The short name: class and method, without the package. */
    String shortName() {
        int method = benchmark.lastIndexOf('.');
        int type = benchmark.lastIndexOf('.', method - 1);
        return benchmark.substring(type + 1);
    }

    /**
     * Reads the results in a JMH JSON file that have the metric: {@link #PRIMARY}, or a secondary
     * metric such as {@code gc.alloc.rate.norm} (present with {@code -prof gc}).
     *
     * @throws IOException if the file cannot be read or is not a JMH result file
     */
    static List<JmhResult> read(Path file, String metric) throws IOException {
        return parse(Files.readString(file), metric);
    }

    /**
     * The results in a JMH JSON document (an array of runs) that have the metric.
     *
     * @throws IOException if the document is not JSON, or not an array
     */
    // Visible for testing
    static List<JmhResult> parse(String json, String metric) throws IOException {
        JsonNode runs = MAPPER.readTree(json);
        if (!runs.isArray()) {
            throw new IOException("not a JMH result file: expected a JSON array of runs");
        }
        List<JmhResult> results = new ArrayList<>();
        for (JsonNode run : runs) {
            JsonNode measured = PRIMARY.equals(metric)
                    ? run.path("primaryMetric")
                    : run.path("secondaryMetrics").path(metric);
            if (measured.isMissingNode()) {
                continue;
            }
            results.add(new JmhResult(run.path("benchmark").asText(), run.path("threads").asInt(), params(run),
                    number(measured.path("score")), number(measured.path("scoreError")),
                    measured.path("scoreUnit").asText()));
        }
        return results;
    }

    private static Map<String, String> params(JsonNode run) {
        Map<String, String> params = new LinkedHashMap<>();
        run.path("params").properties().forEach(param -> params.put(param.getKey(), param.getValue().asText()));
        return params;
    }

    /** JMH writes non-finite numbers as strings ("NaN"); a missing number is NaN too. */
    private static double number(JsonNode value) {
        if (value.isNumber()) {
            return value.doubleValue();
        }
        return value.isTextual() ? Double.parseDouble(value.textValue()) : Double.NaN;
    }
}
