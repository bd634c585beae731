package io.purgatory.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.PurgatoryMetrics.Quantity;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Binds a purgatory's {@link PurgatoryMetrics} to a Micrometer {@link MeterRegistry}, every meter
 * tagged {@code purgatory=<name>} (plus any common tags given). The meters are derived, not listed
 * here: one per {@link Quantity} (a gauge or a function counter, under {@link Quantity#meterName()}),
 * and the expiry lateness as
 *
 * <ul>
 *   <li>a function timer {@value PurgatoryMetrics#EXPIRY_LATENESS_METER} of the histogram's exact
 *       count and sum (Prometheus: a summary, {@code purgatory_expiry_lateness_seconds_count} and
 *       {@code _sum});</li>
 *   <li>a time gauge {@code purgatory.expiry.lateness.max};</li>
 *   <li>a time gauge {@code purgatory.expiry.lateness.percentile} per {@code phi} tag (0.5, 0.99,
 *       0.999).</li>
 * </ul>
 *
 * <p>The percentiles are gauges, over every expiry since the purgatory opened (not a sliding
 * window, unlike Micrometer's own), at most 1/16 above the true value: the core's histogram
 * ({@link io.purgatory.LatencyHistogram}, slf4j-api being the core's only dependency) has a count, a
 * sum, a maximum and percentiles, but its log-linear buckets are not Prometheus histogram buckets,
 * so a Micrometer {@code Timer} with percentiles could not be filled from it.
 *
 * <p>Gauges and counters hold the metrics weakly, as Micrometer's do by default: binding does not
 * keep a closed purgatory alive. Thread-safe: immutable; the metrics it reads are thread-safe.
 */
public final class PurgatoryMeterBinder implements MeterBinder {

    /** The percentiles of the expiry lateness registered, as Micrometer's {@code phi} tag values. */
    static final List<Double> LATENESS_PERCENTILES = List.of(0.5, 0.99, 0.999);

    private final PurgatoryMetrics metrics;
    private final Tags tags;

    /**
     * Binds the purgatory's metrics, tagged with its name.
     *
     * @param purgatory the purgatory whose metrics to register
     */
    public PurgatoryMeterBinder(DelayedOperationPurgatory<?> purgatory) {
        this(purgatory.metrics(), Tags.empty());
    }

    /**
     * Binds the metrics (of a purgatory, or of {@code Waiters}), tagged with the purgatory's name
     * and {@code tags}.
     *
     * @param metrics the metrics, from {@code DelayedOperationPurgatory.metrics()} or {@code Waiters.metrics()}
     * @param tags more tags for every meter; empty for none
     * @throws NullPointerException if metrics is null
     */
    public PurgatoryMeterBinder(PurgatoryMetrics metrics, Iterable<Tag> tags) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.tags = Tags.concat(tags, "purgatory", metrics.name());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Quantity quantity : Quantity.values()) {
            switch (quantity.kind()) {
                case GAUGE -> Gauge.builder(quantity.meterName(), metrics, quantity::read)
                        .description(quantity.description()).tags(tags).register(registry);
                case COUNTER -> FunctionCounter.builder(quantity.meterName(), metrics, quantity::read)
                        .description(quantity.description()).tags(tags).register(registry);
            }
        }
        FunctionTimer.builder(PurgatoryMetrics.EXPIRY_LATENESS_METER, metrics, m -> m.expiryLateness().count(),
                        m -> m.expiryLateness().sumMs(), TimeUnit.MILLISECONDS)
                .description("How long after its deadline, on the timer's clock, each operation expired by the timer expired,"
                        + " since the purgatory opened: exact count and sum")
                .tags(tags)
                .register(registry);
        TimeGauge.builder(PurgatoryMetrics.EXPIRY_LATENESS_METER + ".max", metrics, TimeUnit.MILLISECONDS,
                        m -> m.expiryLateness().maxMs())
                .description("The largest expiry lateness since the purgatory opened")
                .tags(tags)
                .register(registry);
        for (double phi : LATENESS_PERCENTILES) {
            TimeGauge.builder(PurgatoryMetrics.EXPIRY_LATENESS_METER + ".percentile", metrics, TimeUnit.MILLISECONDS,
                            m -> m.expiryLateness().valueAtPercentileMs(phi * 100))
                    .description("Expiry lateness at the percentile phi since the purgatory opened, from a histogram of whole"
                            + " milliseconds (at most 6.25% above the true value)")
                    .tags(tags)
                    .tag("phi", Double.toString(phi))
                    .register(registry);
        }
    }
}
