package io.purgatory.benchmarks.perf;

import java.util.List;

/**
 * One of the purgatories the tool compares, reduced to what the workload does with it. The
 * operations it creates report to the run's {@link Outcomes}. Thread-safe, as the purgatories are.
 */
interface PurgatoryUnderTest extends AutoCloseable {

    /**
     * Creates an operation that completes once made completable, or expires after timeoutMs, and
     * hands it to the purgatory's {@code tryCompleteElseWatch} with keys.
     *
     * @param deadlineNanos {@code System.nanoTime()} at which the operation is due to expire, for
     *     its lateness
     */
    Completable offer(long timeoutMs, long deadlineNanos, List<WatchKey> keys);

    /** The purgatory's {@code checkAndComplete(key)}. */
    void checkAndComplete(WatchKey key);

    /**
     * Creates an operation that completes once partition's high watermark reaches offset, or expires
     * after timeoutMs, and hands it to the purgatory watching partition's key: at position offset
     * where the purgatory is used with position watches, as a plain key otherwise.
     *
     * @param deadlineNanos {@code System.nanoTime()} at which the operation is due to expire
     */
    void offer(long timeoutMs, long deadlineNanos, Partition partition, long offset);

    /**
     * Partition's high watermark has moved: {@code advance(key, highWatermark)} with position
     * watches, {@code checkAndComplete(key)} otherwise (all Kafka's purgatory has).
     */
    void advance(Partition partition);

    /** Operations neither completed nor expired (the purgatory's {@code numDelayed()}). */
    int pending();

    /** Stops the purgatory and its threads. */
    @Override
    void close();
}
