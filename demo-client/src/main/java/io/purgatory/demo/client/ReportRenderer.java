package io.purgatory.demo.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Renders what a person reads: the start line, the live line and the final summary (counts,
 * latency percentiles per outcome, and a text histogram whose log2 buckets show the fast acks
 * apart from the requests that waited for their timeout). Numbers use {@link Locale#ROOT}.
 *
 * <p>Stateless; thread-safe.
 */
final class ReportRenderer {
    /** Width of the longest bar in the text histogram. */
    static final int BAR_WIDTH = 50;
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};
    private static final String ERROR_SYMBOLS = "*%@&$";

    private ReportRenderer() {
    }

    /** The line printed once the handshake is done, before the load. */
    static String startLine(ClientOptions options, Handshake.Result setup) {
        String pace = options.rate() > 0 ? number(options.rate()) + " requests/s" : "as fast as possible";
        return String.format(Locale.ROOT, "demo-client: %s to '%s' (%d partitions) on %s: acks=%d, timeout %d ms, %s,"
                        + " at most %d in flight, %d-byte records (Produce v%d, Metadata v%d)",
                options.untilStopped() ? "produce requests until stopped (Ctrl-C)" : options.requests() + " produce requests",
                setup.topic().name(), setup.topic().partitions().size(), options.bootstrap(), options.acks(),
                options.timeoutMs(), pace, options.concurrency(), options.recordSize(), setup.produceVersion(), setup.metadataVersion());
    }

    /** One live line: the counters now, and the send rate since {@code previous}. */
    static String liveLine(Progress now, Progress previous) {
        long nanos = now.elapsedNanos() - previous.elapsedNanos();
        double rate = nanos > 0 ? (now.sent() - previous.sent()) * 1e9 / nanos : 0;
        return String.format(Locale.ROOT, "[%6.1fs] sent %6d  acked %6d  timed out %6d  other errors %5d  in flight %5d  rate %6.0f req/s",
                now.elapsedNanos() / 1e9, now.sent(), now.acked(), now.timedOut(), now.otherErrors(), now.inFlight(), rate);
    }

    /**
     * The final summary: totals, a percentile table per outcome, and the text histogram. The table's
     * counts add up to the requests asked for: the outcomes, then, for a stopped run, the requests
     * in flight at that moment, then those never sent.
     */
    static String summary(RunReport report) {
        StringBuilder out = new StringBuilder();
        double sendingSeconds = report.sendingNanos() / 1e9;
        // n sends at a steady rate span n - 1 intervals
        String sendRate = report.sent() > 1 && report.sendingNanos() > 0
                ? String.format(Locale.ROOT, " (%.1f requests/s)", (report.sent() - 1) / sendingSeconds)
                : "";
        out.append(String.format(Locale.ROOT, "%nSummary: %s sent in %.2f s%s, last outcome after %.2f s; acks=%d, timeout %d ms%n",
                report.options().untilStopped() ? report.sent() + " requests" : report.sent() + " of " + report.options().requests() + " requests",
                sendingSeconds, sendRate, report.elapsedNanos() / 1e9,
                report.options().acks(), report.options().timeoutMs()));

        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"outcome", "count", "min", "p50", "p90", "p99", "p99.9", "max"});
        for (RunReport.OutcomeSummary summary : report.outcomes()) {
            rows.add(row(summary.outcome().label(), summary));
        }
        if (report.interrupted() != null && report.interrupted().inFlight() > 0) { // so that the rows add up to the requests
            rows.add(row("in flight when stopped", RunReport.OutcomeSummary.withoutLatencies(Outcome.NO_RESPONSE,
                    report.interrupted().inFlight())));
        }
        if (report.notSent() > 0) {
            rows.add(row("not sent", RunReport.OutcomeSummary.withoutLatencies(Outcome.DISCONNECTED, report.notSent())));
        }
        appendTable(out, rows);
        out.append("  (latencies in ms from send to outcome; percentiles to 3 significant digits)").append(System.lineSeparator());
        out.append(System.lineSeparator()).append(histogram(report.outcomes()));
        return out.toString();
    }

    /**
     * The text histogram: one row per power-of-two millisecond bucket from the fastest request's to
     * the slowest's (empty rows between them show the gap between populations), one bar character
     * per outcome, scaled so the fullest row is {@link #BAR_WIDTH} wide.
     */
    static String histogram(List<RunReport.OutcomeSummary> outcomes) {
        Map<Outcome, Character> symbols = symbols(outcomes);
        if (symbols.isEmpty()) {
            return "Latency histogram: no latencies (no request got a response)" + System.lineSeparator();
        }
        // bucket -> outcome -> count
        TreeMap<Integer, Map<Outcome, Long>> buckets = new TreeMap<>();
        for (RunReport.OutcomeSummary summary : outcomes) {
            Histogram latencies = summary.latenciesMicros();
            if (latencies == null) {
                continue;
            }
            for (HistogramIterationValue value : latencies.recordedValues()) {
                int bucket = bucketOf(latencies.lowestEquivalentValue(value.getValueIteratedTo()));
                buckets.computeIfAbsent(bucket, b -> new LinkedHashMap<>())
                        .merge(summary.outcome(), value.getCountAtValueIteratedTo(), Long::sum);
            }
        }
        long fullest = 0;
        for (Map<Outcome, Long> counts : buckets.values()) {
            fullest = Math.max(fullest, counts.values().stream().mapToLong(Long::longValue).sum());
        }
        int labelWidth = bucketLabel(buckets.lastKey()).length();

        StringBuilder out = new StringBuilder("Latency histogram (ms, log2 buckets):");
        symbols.forEach((outcome, symbol) -> out.append("  ").append(symbol).append(' ').append(outcome.label()));
        out.append(System.lineSeparator());
        for (int bucket = buckets.firstKey(); bucket <= buckets.lastKey(); bucket++) {
            Map<Outcome, Long> counts = buckets.getOrDefault(bucket, Map.of());
            out.append(String.format(Locale.ROOT, "  %" + labelWidth + "s |%-" + BAR_WIDTH + "s| %s%n",
                    bucketLabel(bucket), bar(counts, symbols, fullest), countsText(counts, symbols)));
        }
        return out.toString();
    }

    /**
     * The histogram bucket of a latency: 0 for [0, 1) ms, then {@code b} for
     * [2<sup>b-1</sup>, 2<sup>b</sup>) ms.
     */
    // Visible for testing
    static int bucketOf(long micros) {
        long ms = micros / 1000;
        return ms == 0 ? 0 : Long.SIZE - Long.numberOfLeadingZeros(ms);
    }

    // Visible for testing
    static String bucketLabel(int bucket) {
        return bucket == 0 ? "0-1" : (1L << (bucket - 1)) + "-" + (1L << bucket);
    }

    /**
     * Label, count, exact min, percentiles (HdrHistogram: highest equivalent value, clamped to the
     * exact min and max so that no percentile reads above the max), exact max.
     */
    private static String[] row(String label, RunReport.OutcomeSummary summary) {
        Histogram micros = summary.latenciesMicros();
        String[] row = new String[3 + PERCENTILES.length + 1];
        row[0] = label;
        row[1] = Long.toString(summary.count());
        row[2] = micros == null ? "-" : millis(summary.minMicros());
        for (int i = 0; i < PERCENTILES.length; i++) {
            row[3 + i] = micros == null ? "-" : millis(Math.max(summary.minMicros(),
                    Math.min(summary.maxMicros(), micros.getValueAtPercentile(PERCENTILES[i]))));
        }
        row[row.length - 1] = micros == null ? "-" : millis(summary.maxMicros());
        return row;
    }

    /** First column left-aligned, the others right-aligned, each as wide as its widest cell. */
    private static void appendTable(StringBuilder out, List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder("  ");
            line.append(row[0]).append(" ".repeat(widths[0] - row[0].length()));
            for (int i = 1; i < row.length; i++) {
                line.append("  ").append(" ".repeat(widths[i] - row[i].length())).append(row[i]);
            }
            out.append(line).append(System.lineSeparator());
        }
    }

    /** A bar character for each outcome with latencies, in report order. */
    private static Map<Outcome, Character> symbols(List<RunReport.OutcomeSummary> outcomes) {
        Map<Outcome, Character> symbols = new LinkedHashMap<>();
        int nextError = 0;
        for (RunReport.OutcomeSummary summary : outcomes) {
            if (summary.latenciesMicros() == null) {
                continue;
            }
            char symbol = switch (summary.outcome().kind()) {
                case ACKED -> '#';
                case TIMED_OUT -> 'x';
                case NO_RESPONSE -> '?';
                case DISCONNECTED -> '!';
                default -> ERROR_SYMBOLS.charAt(Math.min(nextError++, ERROR_SYMBOLS.length() - 1));
            };
            symbols.put(summary.outcome(), symbol);
        }
        return symbols;
    }

    /** A segment per outcome, at least one character for a non-zero count, at most BAR_WIDTH in all. */
    private static String bar(Map<Outcome, Long> counts, Map<Outcome, Character> symbols, long fullest) {
        Map<Outcome, Integer> lengths = new LinkedHashMap<>();
        int total = 0;
        for (Outcome outcome : symbols.keySet()) {
            long count = counts.getOrDefault(outcome, 0L);
            if (count > 0) {
                int length = (int) Math.max(1, Math.round((double) count * BAR_WIDTH / fullest));
                lengths.put(outcome, length);
                total += length;
            }
        }
        while (total > BAR_WIDTH) { // rounding up several small segments can overflow the row
            Outcome longest = lengths.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            lengths.merge(longest, -1, Integer::sum);
            total--;
        }
        StringBuilder bar = new StringBuilder(total);
        lengths.forEach((outcome, length) -> bar.append(String.valueOf(symbols.get(outcome)).repeat(length)));
        return bar.toString();
    }

    /** "1390", or "405 (400 # 5 x)" when the row mixes outcomes. */
    private static String countsText(Map<Outcome, Long> counts, Map<Outcome, Character> symbols) {
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        if (counts.size() <= 1) {
            return Long.toString(total);
        }
        StringBuilder text = new StringBuilder().append(total).append(" (");
        String separator = "";
        for (Map.Entry<Outcome, Character> entry : symbols.entrySet()) {
            Long count = counts.get(entry.getKey());
            if (count != null) {
                text.append(separator).append(count).append(' ').append(entry.getValue());
                separator = " ";
            }
        }
        return text.append(')').toString();
    }

    /**
     * Milliseconds to three significant figures (the histogram's precision), at least 0.01:
     * "0.42", "8.43", "23.4", "1002".
     */
    // Visible for testing
    static String millis(long micros) {
        double ms = micros / 1000.0;
        String format = ms < 10 ? "%.2f" : ms < 100 ? "%.1f" : "%.0f";
        return String.format(Locale.ROOT, format, ms);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
    }
}
