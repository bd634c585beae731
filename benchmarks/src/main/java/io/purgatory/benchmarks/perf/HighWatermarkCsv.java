package io.purgatory.benchmarks.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;

/**
 * The HWM mode's results as CSV, one line per purgatory and lag, appended to a file (with a header
 * line when the file is new or empty), so that runs in separate JVMs collect into one file that
 * {@code io.purgatory.benchmarks.chart.CsvChart} draws. Durations in the unit their column names.
 *
 * <p>Stateless: thread-safe, but two processes appending to one file at once may interleave lines.
 */
final class HighWatermarkCsv {

    static final String HEADER = "purgatory,partitions,lag,expire_fraction,timeout_ms,offered,elapsed_s,"
            + "requests_per_s,process_cpu_us_per_request,driver_cpu_us_per_request,completed,expired,"
            + "completion_latency_p99_us,expiry_lateness_p99_ms,pending_at_end,peak_heap_mib";

    private HighWatermarkCsv() {
    }

    /** One line, without its line separator. */
    static String line(PurgatoryImplementation implementation, HighWatermarkWorkload workload, LoadResult result) {
        return String.format(Locale.ROOT, "%s,%d,%d,%s,%d,%d,%.3f,%.1f,%.3f,%.3f,%d,%d,%.3f,%.3f,%d,%.1f",
                implementation.label(), workload.partitions(), workload.lag(), workload.expireFraction(),
                workload.timeoutMs(), result.offered(), result.elapsedNanos() / 1e9, result.achievedRate(),
                result.processCpuPerRequest() / 1e3, result.driverCpuPerRequest() / 1e3,
                result.outcomes().completed(), result.outcomes().expired(),
                Reports.valueAt(result.outcomes().completionLatency(), 99) / 1e3,
                Reports.valueAt(result.outcomes().expiryLateness(), 99) / 1e6, result.pendingAtEnd(),
                result.peakHeapAfterGc() / (1024.0 * 1024.0));
    }

    /** Appends lines to file, after the header if the file is new or empty. */
    static void append(Path file, List<String> lines) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            boolean fresh = !Files.exists(file) || Files.size(file) == 0;
            StringBuilder text = new StringBuilder();
            if (fresh) {
                text.append(HEADER).append('\n');
            }
            lines.forEach(line -> text.append(line).append('\n'));
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file + " failed", e);
        }
    }
}
