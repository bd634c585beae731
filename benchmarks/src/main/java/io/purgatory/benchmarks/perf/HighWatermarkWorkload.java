package io.purgatory.benchmarks.perf;

/**
 * The requests of the high-watermark (HWM) mode: produce requests waiting for replication.
 *
 * @param partitions partitions the requests go to, round robin
 * @param lag how many requests per partition the follower's high watermark lags the producer by:
 *     the requests parked on each partition at any time, besides the expiring ones
 * @param timeoutMs the timeout of the expiring requests (the others wait up to an hour, so that
 *     only the high watermark completes them)
 * @param expireFraction the share of requests that wait for an offset the high watermark never
 *     reaches, and so expire
 * @param seed seeds the draw of the expiring requests, so that every purgatory sees the same sequence
 *
 * <p>Immutable, so thread-safe.
 */
record HighWatermarkWorkload(int partitions, int lag, long timeoutMs, double expireFraction, long seed) {

    HighWatermarkWorkload {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1: " + partitions);
        }
        if (lag < 1) {
            throw new IllegalArgumentException("lag must be at least 1: " + lag);
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms: " + timeoutMs);
        }
        if (!(expireFraction >= 0 && expireFraction < 1)) {
            throw new IllegalArgumentException("expire fraction must be in [0, 1): " + expireFraction);
        }
    }
}
