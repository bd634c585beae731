package io.purgatory.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.timer.MockTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a user of Micrometer sees of a purgatory: the meters' values follow the purgatory's own
 * metrics as operations complete and expire, and the Prometheus scrape has them under Prometheus
 * names with the purgatory's name as a label.
 */
class PurgatoryMeterBinderTest {

    private final MockTimer timer = new MockTimer();
    private DelayedOperationPurgatory<Flag> purgatory;

    @BeforeEach
    void open() {
        purgatory = DelayedOperationPurgatory.builder("binder-test").timer(timer).purgeInterval(0).reaperEnabled(false).build();
    }

    @AfterEach
    void close() {
        purgatory.close();
        timer.close();
    }

    @Test
    void theMetersFollowThePurgatory() {
        MeterRegistry registry = new SimpleMeterRegistry();
        new PurgatoryMeterBinder(purgatory.metrics(), Tags.of("app", "test")).bindTo(registry);
        Flag completing = new Flag(1_000);
        Flag expiring = new Flag(100);
        purgatory.tryCompleteElseWatch(completing, List.of("k"));
        purgatory.tryCompleteElseWatch(expiring, List.of("k", "other"));

        assertEquals(2.0, gauge(registry, "purgatory.operations.delayed"));
        assertEquals(3.0, gauge(registry, "purgatory.operations.watched"));

        completing.ready = true;
        purgatory.checkAndComplete("k");
        timer.advance(100);

        assertEquals(0.0, gauge(registry, "purgatory.operations.delayed"));
        assertEquals(1.0, counter(registry, "purgatory.operations.completed"));
        assertEquals(1.0, counter(registry, "purgatory.operations.expired"));
        assertEquals(purgatory.metrics().purged(), (long) counter(registry, "purgatory.watches.purged"));
        assertEquals(purgatory.metrics().watched(), (long) gauge(registry, "purgatory.operations.watched"));
        assertEquals(1.0, registry.get("purgatory.expiry.lateness").functionTimer().count());
        assertEquals(purgatory.metrics().expiryLateness().sumMs(),
                registry.get("purgatory.expiry.lateness").functionTimer().totalTime(TimeUnit.MILLISECONDS));
        for (double phi : PurgatoryMeterBinder.LATENESS_PERCENTILES) {
            double seconds = registry.get("purgatory.expiry.lateness.percentile").tag("phi", Double.toString(phi))
                    .tag("purgatory", "binder-test").timeGauge().value(TimeUnit.SECONDS);
            assertEquals(purgatory.metrics().expiryLateness().valueAtPercentileMs(phi * 100) / 1000.0, seconds);
        }
        assertEquals(purgatory.metrics().expiryLateness().maxMs() / 1000.0,
                registry.get("purgatory.expiry.lateness.max").timeGauge().value(TimeUnit.SECONDS));
        assertEquals("test", registry.get("purgatory.operations.delayed").gauge().getId().getTag("app"));
    }

    @Test
    void everyQuantityOfTheMetricsIsAMeterUnderItsOneName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        new PurgatoryMeterBinder(purgatory).bindTo(registry);
        purgatory.tryCompleteElseWatch(new Flag(1_000), List.of("k", "j"));
        for (PurgatoryMetrics.Quantity quantity : PurgatoryMetrics.Quantity.values()) {
            double value = quantity.kind() == PurgatoryMetrics.Kind.GAUGE ? gauge(registry, quantity.meterName())
                    : counter(registry, quantity.meterName());
            assertEquals(quantity.read(purgatory.metrics()), (long) value, quantity.meterName());
            assertEquals(quantity.description(), registry.get(quantity.meterName()).meter().getId().getDescription());
        }
        assertEquals(1, purgatory.metrics().snapshot().delayed());
        assertEquals(2, purgatory.metrics().snapshot().watched());
    }

    @Test
    void thePrometheusScrapeNamesThemThePrometheusWay() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new PurgatoryMeterBinder(purgatory).bindTo(registry);
        for (int i = 0; i < 3; i++) {
            purgatory.tryCompleteElseWatch(new Flag(50), List.of("k" + i));
        }
        timer.advance(50);
        purgatory.tryCompleteElseWatch(new Flag(50), List.of("parked"));

        String scrape = registry.scrape();

        assertEquals(1.0, sample(scrape, "purgatory_operations_delayed"), scrape);
        assertEquals(3.0, sample(scrape, "purgatory_operations_expired_total"), scrape);
        assertEquals(0.0, sample(scrape, "purgatory_operations_completed_total"), scrape);
        assertEquals(3.0, sample(scrape, "purgatory_expiry_lateness_seconds_count"), scrape);
        assertEquals(0.0, sample(scrape, "purgatory_expiry_lateness_seconds_sum"), scrape);
        assertTrue(scrape.contains("# TYPE purgatory_expiry_lateness_seconds summary"), scrape);
        assertTrue(scrape.contains("# TYPE purgatory_watches_purged_total counter"), scrape);
        assertTrue(scrape.contains("purgatory_expiry_lateness_percentile_seconds{phi=\"0.99\",purgatory=\"binder-test\"}"), scrape);
        assertTrue(scrape.contains("# TYPE purgatory_expiry_lateness_max_seconds gauge"), scrape);
        assertTrue(scrape.contains("purgatory_operations_watched{purgatory=\"binder-test\"}"), scrape);
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).tag("purgatory", "binder-test").gauge().value();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.get(name).tag("purgatory", "binder-test").functionCounter().count();
    }

    /** The value of the scrape's one sample of name, labelled with the purgatory's name alone. */
    private static double sample(String scrape, String name) {
        Matcher m = Pattern.compile("^" + name + "\\{purgatory=\"binder-test\"} (\\S+)$", Pattern.MULTILINE).matcher(scrape);
        assertTrue(m.find(), () -> name + " in\n" + scrape);
        return Double.parseDouble(m.group(1));
    }

    /** Completes once {@code ready} is set. Thread-safe: the flag is volatile. */
    private static final class Flag extends DelayedOperation {
        volatile boolean ready;

        Flag(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }
}
