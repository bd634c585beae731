package io.purgatory.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Binds a purgatory's {@link PurgatoryMetrics} to a Micrometer {@link MeterRegistry}, every meter
 * tagged {@code purgatory=<name>} (plus any common tags given):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>from</th></tr>
 *   <tr><td>{@code purgatory.operations.delayed}</td><td>gauge</td><td>{@code numDelayed()}: operations waiting</td></tr>
 *   <tr><td>{@code purgatory.operations.watched}</td><td>gauge</td><td>{@code watched()}: watches linked, one per
 *       operation and key, tombstones of completed operations included until purged</td></tr>
 *   <tr><td>{@code purgatory.operations.completed}</td><td>function counter</td><td>completed by their condition
 *       (or {@code forceComplete})</td></tr>
 *   <tr><td>{@code purgatory.operations.expired}</td><td>function counter</td><td>completed by expiring, those
 *       expired by {@code close()} included</td></tr>
 *   <tr><td>{@code purgatory.watches.purged}</td><td>function counter</td><td>tombstone watches removed by
 *       purges</td></tr>
 *   <tr><td>{@code purgatory.expiry.lateness}</td><td>time gauge per {@code phi} tag (0.5, 0.99, 0.999)</td>
 *       <td>how late after its deadline an operation expired by the timer expired</td></tr>
 *   <tr><td>{@code purgatory.expiry.lateness.max}</td><td>time gauge</td><td>the latest such expiry</td></tr>
 *   <tr><td>{@code purgatory.expiry.lateness.count}</td><td>function counter</td><td>expiries measured</td></tr>
 * </table>
 *
 * <p><b>Why the lateness is gauges and not a timer.</b> The core records lateness into its own
 * fixed-size histogram ({@link io.purgatory.LatencyHistogram}, slf4j-api being its only dependency),
 * which hands out a count, a maximum and percentiles, but neither a sum nor its buckets. A Micrometer
 * {@code Timer} or {@code FunctionTimer} needs a total time, and a Prometheus histogram needs the
 * buckets, so neither could be filled honestly. What is registered is what the histogram knows:
 * each percentile as a time gauge, over every expiry since the purgatory opened (not a sliding
 * window, unlike Micrometer's own percentiles), at most 1/16 above the true value.
 *
 * <p>Gauges and counters hold the metrics weakly, as Micrometer's do by default: binding does not
 * keep a closed purgatory alive. Thread-safe: immutable; the metrics it reads are thread-safe.
 */
public final class PurgatoryMeterBinder implements MeterBinder {

    /** The percentiles of the expiry lateness registered, as Micrometer's {@code phi} tag values. */
    static final List<Double> LATENESS_PERCENTILES = List.of(0.5, 0.99, 0.999);

    private final PurgatoryMetrics metrics;
    private final Tags tags;

    /** Binds the purgatory's metrics, tagged with its name. */
    public PurgatoryMeterBinder(DelayedOperationPurgatory<?> purgatory) {
        this(purgatory.metrics(), Tags.empty());
    }

    /**
     * Binds the metrics (of a purgatory, or of {@code Waiters}), tagged with the purgatory's name
     * and {@code tags}.
     */
    public PurgatoryMeterBinder(PurgatoryMetrics metrics, Iterable<Tag> tags) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.tags = Tags.concat(tags, "purgatory", metrics.getName());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("purgatory.operations.delayed", metrics, PurgatoryMetrics::delayed)
                .description("Operations waiting: neither completed nor expired")
                .tags(tags)
                .register(registry);
        Gauge.builder("purgatory.operations.watched", metrics, PurgatoryMetrics::watched)
                .description("Watches linked, one per operation and key, including tombstones of completed operations not purged yet")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("purgatory.operations.completed", metrics, PurgatoryMetrics::completed)
                .description("Operations completed by their condition or by forceComplete")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("purgatory.operations.expired", metrics, PurgatoryMetrics::expired)
                .description("Operations completed by expiring, including those expired by close()")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("purgatory.watches.purged", metrics, PurgatoryMetrics::purged)
                .description("Tombstone watches of completed operations removed by purges")
                .tags(tags)
                .register(registry);
        for (double phi : LATENESS_PERCENTILES) {
            TimeGauge.builder("purgatory.expiry.lateness", metrics, TimeUnit.MILLISECONDS,
                            m -> m.expiryLateness().valueAtPercentileMs(phi * 100))
                    .description("Expiry lateness at the percentile phi, over every expiry by the timer since the purgatory opened")
                    .tags(tags)
                    .tag("phi", Double.toString(phi))
                    .register(registry);
        }
        TimeGauge.builder("purgatory.expiry.lateness.max", metrics, TimeUnit.MILLISECONDS, m -> m.expiryLateness().maxMs())
                .description("The largest expiry lateness since the purgatory opened")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder("purgatory.expiry.lateness.count", metrics, m -> m.expiryLateness().count())
                .description("Operations expired by the timer, whose lateness was measured")
                .tags(tags)
                .register(registry);
    }
}
