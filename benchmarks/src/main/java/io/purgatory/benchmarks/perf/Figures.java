package io.purgatory.benchmarks.perf;

import java.util.Locale;

/** Formats the tool's figures for reading; NaN, a figure that does not exist, as {@code -}. Stateless: thread-safe. */
final class Figures {

    private static final double MIB = 1024 * 1024;

    private Figures() {
    }

    /** A nanosecond figure with a unit that keeps it short: {@code 850 ns}, {@code 12.3 us}, {@code 4.56 ms}, {@code 1.23 s}. */
    static String duration(double nanos) {
        if (Double.isNaN(nanos)) {
            return "-";
        }
        double abs = Math.abs(nanos);
        if (abs < 1e3) {
            return String.format(Locale.ROOT, "%.0f ns", nanos);
        }
        if (abs < 1e6) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        if (abs < 1e9) {
            return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    /** A count or rate, rounded, with thousands separators: {@code 1,234,567}. */
    static String count(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** A ratio with two decimals: {@code 0.65}; {@code -} when it means nothing (NaN or infinite). */
    static String ratio(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2f", value) : "-";
    }

    /** A byte figure in mebibytes, one decimal: {@code 171.2}. */
    static String mebibytes(double bytes) {
        return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.1f", bytes / MIB);
    }
}
