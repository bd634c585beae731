package io.purgatory;

/**
 * The JMX view of {@link PurgatoryMetrics}, registered as
 * {@code io.purgatory:type=DelayedOperationPurgatory,name="<purgatory name>"}. Implementations are
 * thread-safe: JMX reads them from its own threads.
 */
public interface PurgatoryMetricsMBean {

    String getName();

    long getCompleted();

    long getExpired();

    long getPurged();

    long getWatched();

    long getDelayed();

    long getExpiryLatenessCount();

    long getExpiryLatenessP50Ms();

    long getExpiryLatenessP99Ms();

    long getExpiryLatenessMaxMs();
}
