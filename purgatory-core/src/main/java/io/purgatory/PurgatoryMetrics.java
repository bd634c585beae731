package io.purgatory;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Counters and gauges of one {@link DelayedOperationPurgatory}: read live from code
 * ({@link DelayedOperationPurgatory#metrics()}), as one {@link #snapshot()}, over JMX under
 * {@link #objectName()}, and (through purgatory-micrometer) as Micrometer meters.
 *
 * <p><b>One name per quantity.</b> Each scalar quantity is a {@link Quantity}: its Java accessor
 * here and its {@link Snapshot} component are {@link Quantity#javaName()}, its JMX attribute is that
 * name capitalised, its meter is {@link Quantity#meterName()} (Prometheus: dots as underscores,
 * {@code _total} after a counter). The expiry lateness is the one histogram,
 * {@link #expiryLateness()}. To add a quantity: a constant in {@link Quantity}, its accessor and
 * {@link Snapshot} component here, the call that counts it in {@link DelayedOperationPurgatory},
 * and its row in docs/demo.md's metric table; JMX and the Micrometer binder follow from the enum.
 *
 * <p>Thread-safe: counters are {@link LongAdder}s, the histogram is lock-free; a snapshot reads
 * each quantity once, not all at one instant.
 */
public final class PurgatoryMetrics {

    /** How a quantity moves: a gauge goes up and down, a counter only up. */
    public enum Kind {
        /** A value now, that goes up and down (Micrometer's {@code Gauge}). */
        GAUGE,
        /** A count since the purgatory opened, that only goes up (Micrometer's {@code FunctionCounter}). */
        COUNTER
    }

    /** The purgatory's scalar quantities, each named once; see the class comment. */
    public enum Quantity {
        /** Operations waiting now: neither completed nor expired (the purgatory's {@code numDelayed()}). */
        DELAYED("delayed", "purgatory.operations.delayed", Kind.GAUGE,
                "Operations waiting now: neither completed nor expired"),
        /** Watch-list entries now, one per operation and key, tombstones of completed operations not purged yet included. */
        WATCHED("watched", "purgatory.operations.watched", Kind.GAUGE,
                "Watch-list entries now, one per operation and key, including tombstones of completed operations not purged yet"),
        /** Operations completed by their condition, {@code forceComplete} or a cancel. */
        COMPLETED("completed", "purgatory.operations.completed", Kind.COUNTER,
                "Operations completed before their timeout: by their condition, forceComplete or a cancel"),
        /** Operations expired, by their timer or by {@code close()}. */
        EXPIRED("expired", "purgatory.operations.expired", Kind.COUNTER,
                "Operations completed by expiring, by their timer or by close()"),
        /** Tombstone watches removed by purges. */
        PURGED("purged", "purgatory.watches.purged", Kind.COUNTER,
                "Tombstone watches of completed operations removed by purges (housekeeping, not operations)");

        private final String javaName;
        private final String meterName;
        private final Kind kind;
        private final String description;

        Quantity(String javaName, String meterName, Kind kind, String description) {
            this.javaName = javaName;
            this.meterName = meterName;
            this.kind = kind;
            this.description = description;
        }

        /**
         * The accessor's and the snapshot component's name; capitalised, the JMX attribute's.
         *
         * @return the accessor's name, e.g. {@code delayed}
         */
        public String javaName() {
            return javaName;
        }

        /**
         * The meter's name in Micrometer's dotted form, e.g. {@code purgatory.operations.delayed}.
         *
         * @return the meter's dotted name
         */
        public String meterName() {
            return meterName;
        }

        /**
         * How the quantity moves: a gauge or a counter (Micrometer registers it as one or the other).
         *
         * @return whether it is a gauge or a counter
         */
        public Kind kind() {
            return kind;
        }

        /**
         * One line for a meter's description or a metric's help.
         *
         * @return the description
         */
        public String description() {
            return description;
        }

        /**
         * The quantity's current value in {@code metrics}.
         *
         * @param metrics the metrics of a purgatory
         * @return the value now
         */
        public long read(PurgatoryMetrics metrics) {
            return switch (this) { // a switch, not a function field: an enum's fields stay immutable
                case DELAYED -> metrics.delayed();
                case WATCHED -> metrics.watched();
                case COMPLETED -> metrics.completed();
                case EXPIRED -> metrics.expired();
                case PURGED -> metrics.purged();
            };
        }
    }

    /**
     * The quantities at one reading, and the lateness histogram's summary; what the demo broker's
     * {@code /api/state} shows per purgatory and its JMX bean serves. Immutable.
     *
     * @param name the purgatory's name
     * @param expiryLateness the lateness of timer expiries since the purgatory opened
     */
    public record Snapshot(String name, long delayed, long watched, long completed, long expired, long purged,
                           LatencyHistogram.Summary expiryLateness) {
    }

    /** The meter name of the expiry lateness, as a timer of its count and sum in Micrometer's dotted form. */
    public static final String EXPIRY_LATENESS_METER = "purgatory.expiry.lateness";

    private final String name;
    private final LongAdder completed = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder purged = new LongAdder();
    private final LatencyHistogram expiryLateness = new LatencyHistogram();
    private final LongSupplier watched;
    private final LongSupplier delayed;

    PurgatoryMetrics(String name, LongSupplier watched, LongSupplier delayed) {
        this.name = name;
        this.watched = watched;
        this.delayed = delayed;
    }

    /**
     * The purgatory's name: the {@code purgatory} tag or label of its meters.
     *
     * @return the purgatory's name
     */
    public String name() {
        return name;
    }

    /**
     * {@link Quantity#COMPLETED}.
     *
     * @return the operations completed before their timeout, since the purgatory opened
     */
    public long completed() {
        return completed.sum();
    }

    /**
     * {@link Quantity#EXPIRED}; {@code completed + expired} is every operation that finished.
     *
     * @return the operations expired, since the purgatory opened
     */
    public long expired() {
        return expired.sum();
    }

    /**
     * {@link Quantity#PURGED}.
     *
     * @return the tombstone watches purged, since the purgatory opened
     */
    public long purged() {
        return purged.sum();
    }

    /**
     * {@link Quantity#WATCHED}: the purgatory's {@code watched()}.
     *
     * @return the watch-list entries now
     */
    public long watched() {
        return watched.getAsLong();
    }

    /**
     * {@link Quantity#DELAYED}: the purgatory's {@code numDelayed()}.
     *
     * @return the operations waiting now
     */
    public long delayed() {
        return delayed.getAsLong();
    }

    /**
     * How long after its deadline, on the timer's clock, each operation expired by the timer actually expired.
     *
     * @return the live histogram, in milliseconds of lateness
     */
    public LatencyHistogram expiryLateness() {
        return expiryLateness;
    }

    /**
     * Every quantity now, and the lateness histogram's summary.
     *
     * @return a new snapshot
     */
    public Snapshot snapshot() {
        return new Snapshot(name, delayed(), watched(), completed(), expired(), purged(), expiryLateness.summary());
    }

    /**
     * The JMX name: {@code io.purgatory:type=DelayedOperationPurgatory,name="<name>"}.
     *
     * @return the name the purgatory's bean is registered under
     */
    public ObjectName objectName() {
        return objectName(name);
    }

    static ObjectName objectName(String purgatoryName) {
        try {
            return new ObjectName("io.purgatory:type=DelayedOperationPurgatory,name="
                    + ObjectName.quote(purgatoryName));
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("no JMX name for purgatory " + purgatoryName, e);
        }
    }

    /** The bean the purgatory registers under {@link #objectName()}: {@link Snapshot}'s components as attributes. */
    Object mbean() {
        return new SnapshotMBean(this::snapshot, "The metrics of purgatory " + name);
    }

    void onCompleted(long count) {
        completed.add(count);
    }

    void onExpired() {
        expired.increment();
    }

    void onPurged(long count) {
        purged.add(count);
    }

    @Override
    public String toString() {
        return "PurgatoryMetrics[" + snapshot() + "]";
    }
}
