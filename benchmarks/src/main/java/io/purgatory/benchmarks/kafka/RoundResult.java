package io.purgatory.benchmarks.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * One round of the cluster benchmark: one runtime, one fresh cluster, one measured period.
 *
 * <p>Immutable once built (the histogram is not changed after), so thread-safe.
 *
 * @param runtime stock-4.4.0 or module-4.4.0
 * @param mode the benchmark mode
 * @param round the round's number
 * @param records records acked in the measured period
 * @param seconds the measured period
 * @param brokerCpuNanos the three brokers' process CPU over the period
 * @param produceRequests produce requests the brokers handled over the period
 * @param latency produce latency, microseconds
 * @param parked Kafka's purgatory sizes at the end of the period, by purgatory
 * @param heapBytes the brokers' heap after a full GC at the end, or -1 if not measured
 * @param parkedProduce the produces parked over the period, sampled, or {@code null} if not sampled (then the CSV
 *     line has only {@code parked}'s end-of-period sizes)
 */
record RoundResult(String runtime, String mode, int round, long records, int seconds, long brokerCpuNanos, long produceRequests,
        Histogram latency, Map<String, Long> parked, long heapBytes, ParkedProduce parkedProduce) {

    static final String CSV_HEADER = "runtime,mode,round,records_per_s,broker_cpu_us_per_record,broker_cpu_us_per_produce_request,"
            + "p50_ms,p99_ms,p999_ms,produce_parked,fetch_parked,heap_after_gc_mb";

    double recordsPerSecond() {
        return (double) records / seconds;
    }

    double cpuMicrosPerRecord() {
        return brokerCpuNanos / 1_000.0 / records;
    }

    double cpuMicrosPerProduceRequest() {
        return produceRequests == 0 ? Double.NaN : brokerCpuNanos / 1_000.0 / produceRequests;
    }

    double percentileMs(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1_000.0;
    }

    double heapMb() {
        return heapBytes < 0 ? Double.NaN : heapBytes / (1024.0 * 1024.0);
    }

    String line() {
        return String.format(Locale.ROOT, "%-13s %-6s round %d: %,9.0f records/s, broker CPU %6.1f us/record %7.1f us/produce request, "
                        + "latency p50 %7.2f p99 %7.2f p99.9 %7.2f ms, parked %s, heap after GC %6.1f MB",
                runtime, mode, round, recordsPerSecond(), cpuMicrosPerRecord(), cpuMicrosPerProduceRequest(),
                percentileMs(50), percentileMs(99), percentileMs(99.9), parked, heapMb())
                + (parkedProduce == null ? "" : System.lineSeparator() + "    " + parkedProduce.line());
    }

    String csv() {
        return String.format(Locale.ROOT, "%s,%s,%d,%.0f,%.2f,%.2f,%.3f,%.3f,%.3f,%d,%d,%.1f", runtime, mode, round,
                recordsPerSecond(), cpuMicrosPerRecord(), cpuMicrosPerProduceRequest(), percentileMs(50), percentileMs(99),
                percentileMs(99.9), parked.getOrDefault("Produce", 0L), parked.getOrDefault("Fetch", 0L), heapMb());
    }

    /** Medians per runtime (with the rounds' min-max spread), then module/stock ratios of the medians. */
    static String summary(List<RoundResult> results) {
        Map<String, List<RoundResult>> byRuntime = new LinkedHashMap<>();
        results.forEach(r -> byRuntime.computeIfAbsent(r.runtime(), k -> new ArrayList<>()).add(r));
        Map<String, ToDoubleFunction<RoundResult>> figures = new LinkedHashMap<>();
        figures.put("records/s", RoundResult::recordsPerSecond);
        figures.put("broker CPU us/record", RoundResult::cpuMicrosPerRecord);
        figures.put("broker CPU us/produce request", RoundResult::cpuMicrosPerProduceRequest);
        figures.put("p50 ms", r -> r.percentileMs(50));
        figures.put("p99 ms", r -> r.percentileMs(99));
        figures.put("p99.9 ms", r -> r.percentileMs(99.9));
        figures.put("heap after GC MB", RoundResult::heapMb);
        if (results.stream().allMatch(r -> r.parkedProduce() != null)) {
            figures.put("parked produce requests mean", r -> r.parkedProduce().operationsMean());
            figures.put("parked produce requests max", r -> r.parkedProduce().operationsMax());
            figures.put("Produce PurgatorySize mean", r -> r.parkedProduce().watchedMean());
            figures.put("Produce PurgatorySize max", r -> r.parkedProduce().watchedMax());
            figures.put("records in flight mean", r -> r.parkedProduce().inFlightMean());
            figures.put("records in flight max", r -> r.parkedProduce().inFlightMax());
        }
        StringBuilder text = new StringBuilder("median (min-max) over the rounds\n");
        text.append(String.format(Locale.ROOT, "%-30s", "figure"));
        byRuntime.keySet().forEach(runtime -> text.append(String.format(Locale.ROOT, " %26s", runtime)));
        text.append(byRuntime.size() == 2 ? "   ratio (2nd/1st)\n" : "\n");
        figures.forEach((name, figure) -> {
            text.append(String.format(Locale.ROOT, "%-30s", name));
            List<Double> medians = new ArrayList<>();
            byRuntime.values().forEach(rounds -> {
                double[] values = rounds.stream().mapToDouble(figure).sorted().toArray();
                int middle = values.length / 2;
                double median = values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
                medians.add(median);
                text.append(String.format(Locale.ROOT, " %10.2f (%6.2f-%6.2f)", median, values[0], values[values.length - 1]));
            });
            if (medians.size() == 2) {
                text.append(String.format(Locale.ROOT, "   %5.2f", medians.get(1) / medians.get(0)));
            }
            text.append('\n');
        });
        return text.toString();
    }
}
