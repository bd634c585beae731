package io.purgatory.benchmarks.perf;

import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/** The tables the tool prints, one per mode, every figure of every purgatory side by side. Stateless: thread-safe. */
final class Reports {

    private static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private Reports() {
    }

    static ComparisonTable<LoadResult> load(List<String> labels, List<LoadResult> results) {
        ComparisonTable<LoadResult> table = new ComparisonTable<>(labels, results)
                .row("requests offered", LoadResult::offered, Figures::count)
                .row("achieved rate (requests/s)", LoadResult::achievedRate, Figures::count)
                .row("completed", r -> r.outcomes().completed(), Figures::count)
                .row("expired", r -> r.outcomes().expired(), Figures::count)
                .row("expired before the deadline", r -> r.outcomes().expiredEarly(), Figures::count)
                .row("  the earliest, by", r -> r.outcomes().maxEarlinessNanos(), Figures::duration)
                .row("pending when the window closed", LoadResult::pendingAtEnd, Figures::count)
                .row("CPU per request, process", LoadResult::processCpuPerRequest, Figures::duration)
                .row("CPU per request, driver thread", LoadResult::driverCpuPerRequest, Figures::duration)
                .row("CPU per request, all but driver", LoadResult::nonDriverCpuPerRequest, Figures::duration);
        percentiles(table, "completion latency", r -> r.outcomes().completionLatency());
        percentiles(table, "expiry lateness", r -> r.outcomes().expiryLateness());
        return table
                .row("peak heap after GC (MiB)", LoadResult::peakHeapAfterGc, Figures::mebibytes)
                .row("heap after full GC at end (MiB)", LoadResult::heapAfterFullGc, Figures::mebibytes);
    }

    static ComparisonTable<ScaleResult> scale(List<String> labels, List<ScaleResult> results) {
        return new ComparisonTable<>(labels, results)
                .row("operations offered", ScaleResult::offered, Figures::count)
                .row("operations pending", ScaleResult::held, Figures::count)
                .row("heap after full GC, before (MiB)", ScaleResult::heapBefore, Figures::mebibytes)
                .row("heap after full GC, holding (MiB)", ScaleResult::heapHolding, Figures::mebibytes)
                .row("bytes per pending operation", ScaleResult::bytesPerOperation, Figures::count)
                .row("offer rate, one thread (ops/s)", ScaleResult::offerRate, Figures::count)
                .row("CPU per offer, process", ScaleResult::cpuPerOffer, Figures::duration);
    }

    /**
     * The HWM sweep: one column per lag, and for every metric one row per purgatory; then, when both
     * ran, the ratios of ours with position watches to Kafka's.
     *
     * @param byLag for each lag, the results in the order of implementations
     */
    static ComparisonTable<List<LoadResult>> highWatermark(List<PurgatoryImplementation> implementations,
                                                           List<Integer> lags, List<List<LoadResult>> byLag) {
        List<String> columns = lags.stream().map(lag -> "L=" + Figures.count(lag)).toList();
        ComparisonTable<List<LoadResult>> table = new ComparisonTable<>(columns, byLag);
        perImplementation(table, implementations, "requests/s", LoadResult::achievedRate, Figures::count);
        perImplementation(table, implementations, "CPU per request, process", LoadResult::processCpuPerRequest,
                Figures::duration);
        perImplementation(table, implementations, "CPU per request, driver thread", LoadResult::driverCpuPerRequest,
                Figures::duration);
        perImplementation(table, implementations, "completion latency p99",
                r -> valueAt(r.outcomes().completionLatency(), 99), Figures::duration);
        perImplementation(table, implementations, "expiry lateness p99",
                r -> valueAt(r.outcomes().expiryLateness(), 99), Figures::duration);
        perImplementation(table, implementations, "pending at end", LoadResult::pendingAtEnd, Figures::count);
        perImplementation(table, implementations, "peak heap after GC (MiB)", LoadResult::peakHeapAfterGc,
                Figures::mebibytes);
        int positions = implementations.indexOf(PurgatoryImplementation.OURS_POSITIONS);
        int kafka = implementations.indexOf(PurgatoryImplementation.KAFKA);
        if (positions >= 0 && kafka >= 0) {
            table.row("requests/s, ours-positions/kafka",
                    r -> r.get(positions).achievedRate() / r.get(kafka).achievedRate(), Figures::ratio);
            table.row("CPU per request, ours-positions/kafka",
                    r -> r.get(positions).processCpuPerRequest() / r.get(kafka).processCpuPerRequest(), Figures::ratio);
        }
        int future = implementations.indexOf(PurgatoryImplementation.WAITERS_FUTURE);
        if (future >= 0 && positions >= 0) {
            table.row("requests/s, ours-future/ours-positions",
                    r -> r.get(future).achievedRate() / r.get(positions).achievedRate(), Figures::ratio);
            table.row("CPU per request, ours-future/ours-positions",
                    r -> r.get(future).processCpuPerRequest() / r.get(positions).processCpuPerRequest(), Figures::ratio);
        }
        return table;
    }

    private static void perImplementation(ComparisonTable<List<LoadResult>> table,
                                          List<PurgatoryImplementation> implementations, String metric,
                                          ToDoubleFunction<LoadResult> value, DoubleFunction<String> format) {
        for (int i = 0; i < implementations.size(); i++) {
            int index = i;
            table.row(metric + ", " + implementations.get(i).label(), r -> value.applyAsDouble(r.get(index)), format);
        }
    }

    private static void percentiles(ComparisonTable<LoadResult> table, String name,
                                    Function<LoadResult, Histogram> histogram) {
        table.row(name + " count", r -> histogram.apply(r).getTotalCount(), Figures::count);
        for (double percentile : PERCENTILES) {
            table.row(name + " p" + label(percentile), r -> valueAt(histogram.apply(r), percentile), Figures::duration);
        }
        table.row(name + " max", r -> valueAt(histogram.apply(r), 100), Figures::duration);
    }

    /** The value at a percentile (100: the maximum); NaN for an empty histogram. */
    static double valueAt(Histogram histogram, double percentile) {
        if (histogram.getTotalCount() == 0) {
            return Double.NaN;
        }
        return percentile == 100 ? histogram.getMaxValue() : histogram.getValueAtPercentile(percentile);
    }

    private static String label(double percentile) {
        return percentile == Math.rint(percentile)
                ? Long.toString((long) percentile)
                : String.format(Locale.ROOT, "%s", percentile);
    }
}
