package io.purgatory;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Counters and gauges of one {@link DelayedOperationPurgatory}, readable from code
 * ({@link DelayedOperationPurgatory#metrics()}) and over JMX under {@link #objectName()}.
 *
 * <ul>
 *   <li>{@link #completed()}: operations completed through {@code tryComplete} or
 *       {@code forceComplete}, or cancelled ({@link Completion#COMPLETED} and
 *       {@link Completion#CANCELLED});</li>
 *   <li>{@link #expired()}: operations completed by expiring, by their timer or by {@code close()}
 *       ({@link Completion#EXPIRED} and {@link Completion#CLOSED}); {@code completed + expired} is
 *       every operation that finished;</li>
 *   <li>{@link #purged()}: tombstone watches removed by purges;</li>
 *   <li>{@link #watched()} and {@link #delayed()}: the purgatory's current {@code watched()} and
 *       {@code numDelayed()};</li>
 *   <li>{@link #expiryLateness()}: how long after its deadline, on the timer's clock, each
 *       operation expired by the timer actually expired.</li>
 * </ul>
 *
 * <p>Thread-safe: counters are {@link LongAdder}s, the histogram is lock-free.
 */
public final class PurgatoryMetrics implements PurgatoryMetricsMBean {

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

    public long completed() {
        return completed.sum();
    }

    public long expired() {
        return expired.sum();
    }

    public long purged() {
        return purged.sum();
    }

    public long watched() {
        return watched.getAsLong();
    }

    public long delayed() {
        return delayed.getAsLong();
    }

    public LatencyHistogram expiryLateness() {
        return expiryLateness;
    }

    /** The JMX name: {@code io.purgatory:type=DelayedOperationPurgatory,name="<name>"}. */
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

    void onCompleted() {
        completed.increment();
    }

    void onExpired() {
        expired.increment();
    }

    void onPurged(long count) {
        purged.add(count);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public long getCompleted() {
        return completed();
    }

    @Override
    public long getExpired() {
        return expired();
    }

    @Override
    public long getPurged() {
        return purged();
    }

    @Override
    public long getWatched() {
        return watched();
    }

    @Override
    public long getDelayed() {
        return delayed();
    }

    @Override
    public long getExpiryLatenessCount() {
        return expiryLateness.count();
    }

    @Override
    public long getExpiryLatenessP50Ms() {
        return expiryLateness.valueAtPercentileMs(50);
    }

    @Override
    public long getExpiryLatenessP99Ms() {
        return expiryLateness.valueAtPercentileMs(99);
    }

    @Override
    public long getExpiryLatenessMaxMs() {
        return expiryLateness.maxMs();
    }

    @Override
    public String toString() {
        return "PurgatoryMetrics[" + name + ": completed " + completed() + ", expired " + expired()
                + ", purged " + purged() + ", watched " + watched() + ", delayed " + delayed()
                + ", lateness " + expiryLateness + "]";
    }
}
