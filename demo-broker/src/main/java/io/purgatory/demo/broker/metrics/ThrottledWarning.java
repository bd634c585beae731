package io.purgatory.demo.broker.metrics;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A warning about a problem that may recur many times a second (connections refused, accepts
 * failing, connections closed for bad input, groups refused, dashboard samples failing): the first
 * occurrence in a period is written, with how many were suppressed since the last one written; the
 * others are only counted. One line per period, never a stack trace.
 *
 * <p>Thread-safe: {@code nextNanos} and {@code suppressed} are guarded by {@code this}.
 */
public final class ThrottledWarning {
    private final Consumer<String> sink;
    private final long periodNanos;
    private final LongSupplier nanoClock;
    @GuardedBy("this")
    private long nextNanos;
    @GuardedBy("this")
    private boolean written;
    @GuardedBy("this")
    private long suppressed;

    /**
     * @param sink where a line goes, e.g. a logger's {@code warn}
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    public ThrottledWarning(Consumer<String> sink, long periodMs, LongSupplier nanoClock) {
        this.sink = sink;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.nanoClock = nanoClock;
    }

    /** Writes {@code message} unless a line went out less than a period ago; then only counts it. */
    public void warn(String message) {
        final String line;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (written && now - nextNanos < 0) {
                suppressed++;
                return;
            }
            line = suppressed == 0 ? message
                    : message + " (" + suppressed + " more like it since the last warning, not logged)";
            written = true;
            suppressed = 0;
            nextNanos = now + periodNanos;
        }
        sink.accept(line);
    }
}
