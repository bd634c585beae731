package io.purgatory.demo.client;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * Renders the consumer's start line, live line and summary. Numbers use {@link Locale#ROOT}.
 *
 * <p>Stateless; thread-safe.
 */
final class ConsumeRenderer {
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private ConsumeRenderer() {
    }

    /** The line printed once the consumer's set-up is done. */
    static String startLine(ClientOptions client, ConsumeOptions options, Handshake.ConsumerSetup setup) {
        return String.format(Locale.ROOT, "demo-client: consuming '%s' (%d partitions) on %s from the %s %s: one long poll per partition,"
                        + " min.bytes %d, max.wait.ms %d (Fetch v%d, ListOffsets v%d)",
                setup.topic().name(), setup.topic().partitions().size(), client.bootstrap(),
                options.fromEarliest() ? "log start" : "high watermark", setup.startOffsets(), options.minBytes(), options.maxWaitMs(),
                setup.fetchVersion(), setup.listOffsetsVersion());
    }

    /** One live line: the consumer's counters now, and its record rate since {@code previous}. */
    static String liveLine(ConsumeProgress now, ConsumeProgress previous) {
        long nanos = now.elapsedNanos() - previous.elapsedNanos();
        double rate = nanos > 0 ? (now.records() - previous.records()) * 1e9 / nanos : 0;
        return String.format(Locale.ROOT, "[%6.1fs] consumed %6d  fetches: with data %6d  empty at max wait %5d  errors %3d"
                        + "  end-to-end p50 %s ms  rate %6.0f rec/s",
                now.elapsedNanos() / 1e9, now.records(), now.fetchesWithData(), now.fetchesEmptyAtMaxWait(), now.fetchErrors(),
                now.endToEndP50Micros() < 0 ? "-" : ReportRenderer.millis(now.endToEndP50Micros()), rate);
    }

    /** The summary: counts, fetch outcomes, errors, and end-to-end latency percentiles. */
    static String summary(ConsumeReport report) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nConsumer summary: %d records (%d bytes of batches) in %.2f s; read up to offsets %s%n",
                report.records(), report.bytes(), report.elapsedNanos() / 1e9, report.nextOffsets()));
        out.append(String.format(Locale.ROOT, "  fetches answered with data          %8d%n", report.fetchesWithData()));
        out.append(String.format(Locale.ROOT, "  fetches empty at max.wait.ms        %8d  (waited %d ms: the high watermark brought nothing new)%n",
                report.fetchesEmptyAtMaxWait(), report.options().maxWaitMs()));
        if (report.fetchesEmptyEarly() > 0) {
            out.append(String.format(Locale.ROOT, "  fetches empty before max.wait.ms    %8d%n", report.fetchesEmptyEarly()));
        }
        if (!report.errors().isEmpty()) {
            out.append("  fetch errors: ").append(errors(report.errors())).append(System.lineSeparator());
        }
        Histogram latencies = report.endToEndMicros();
        if (latencies.getTotalCount() == 0) {
            out.append("  end-to-end latency: no record carried a send time (produce with demo-client to get one)").append(System.lineSeparator());
            return out.toString();
        }
        StringBuilder percentiles = new StringBuilder();
        for (double percentile : PERCENTILES) {
            percentiles.append(String.format(Locale.ROOT, "  p%s %s", percentile == Math.rint(percentile) ? Long.toString((long) percentile) : percentile,
                    ReportRenderer.millis(Math.min(latencies.getMaxValue(), latencies.getValueAtPercentile(percentile)))));
        }
        out.append(String.format(Locale.ROOT, "  end-to-end latency (ms, producer's send to consumed), %d records: min %s%s  max %s%n",
                latencies.getTotalCount(), ReportRenderer.millis(latencies.getMinValue()), percentiles,
                ReportRenderer.millis(latencies.getMaxValue())));
        return out.toString();
    }

    private static String errors(Map<String, Long> errors) {
        return errors.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }
}
