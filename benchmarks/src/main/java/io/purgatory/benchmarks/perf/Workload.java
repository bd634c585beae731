package io.purgatory.benchmarks.perf;

/**
 * The requests a run generates.
 *
 * @param ratePerSecond requests offered per second; 0 for no limit (as fast as one thread can offer)
 * @param keys distinct watch keys, say partitions
 * @param keysPerRequest distinct keys each request watches, drawn uniformly
 * @param timeoutMs each request's timeout
 * @param completeFraction the share of requests whose condition comes to hold after a drawn delay;
 *     the others can only expire (and so can those whose drawn delay reaches the timeout)
 * @param completionDelay the distribution of that delay
 * @param completionMeanMs its mean
 * @param lognormalSigma its shape, when log-normal
 * @param seed seeds the draws, so that both purgatories see the same sequence of requests
 */
record Workload(double ratePerSecond, int keys, int keysPerRequest, long timeoutMs,
                double completeFraction, CompletionDelay completionDelay, double completionMeanMs,
                double lognormalSigma, long seed) {

    Workload {
        if (ratePerSecond < 0) {
            throw new IllegalArgumentException("rate must not be negative: " + ratePerSecond);
        }
        if (keysPerRequest < 1 || keysPerRequest > keys) {
            throw new IllegalArgumentException("keys per request must be in [1, keys=" + keys + "]: " + keysPerRequest);
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms: " + timeoutMs);
        }
        if (!(completeFraction >= 0 && completeFraction <= 1)) {
            throw new IllegalArgumentException("complete fraction must be in [0, 1]: " + completeFraction);
        }
        if (!(completionMeanMs > 0) || !(lognormalSigma > 0)) {
            throw new IllegalArgumentException("completion mean and sigma must be positive");
        }
    }

    boolean rateLimited() {
        return ratePerSecond > 0;
    }

    /** The same keys, for requests that only wait: no rate limit, none completes, the given timeout. */
    Workload holding(long holdTimeoutMs) {
        return new Workload(0, keys, keysPerRequest, holdTimeoutMs, 0, completionDelay, completionMeanMs,
                lognormalSigma, seed);
    }
}
