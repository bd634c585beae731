package io.purgatory.benchmarks.soak;

/**
 * The soak's settings.
 *
 * @param operations operations offered in all
 * @param threads worker threads offering and completing
 * @param roundSize operations per round (one purgatory each)
 * @param keys key numbers; each is a plain key and a position key
 * @param maxTimeoutMs operations' timeouts are drawn uniformly from 1 to this
 * @param seed seeds every draw
 *
 * <p>Immutable, so thread-safe.
 */
record SoakConfig(long operations, int threads, int roundSize, int keys, int maxTimeoutMs, long seed) {

    SoakConfig {
        if (operations < 1 || threads < 1 || roundSize < 1 || keys < 2 || maxTimeoutMs < 1) {
            throw new IllegalArgumentException("operations, threads, round size and the maximum timeout must be "
                    + "at least 1, keys at least 2");
        }
    }
}
