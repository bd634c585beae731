package io.purgatory.demo.broker.server;

/**
 * What one response may still hold, taken part by part before each part is built, so that no
 * answer outgrows {@link io.purgatory.demo.broker.config.BrokerConfig#maxResponseBytes()}: a part
 * that does not fit is answered with an error instead of its data. Estimates are upper bounds of
 * the part's serialized size (3 bytes per {@code String} char, fixed fields rounded up).
 *
 * <p>Not thread-safe: one per response, on the thread that builds it.
 */
final class ResponseBudget {
    /** Bytes a part's fixed fields and framing take at most, on top of its strings and byte arrays. */
    static final int PART_OVERHEAD_BYTES = 64;

    private final long limitBytes;
    private long usedBytes;

    ResponseBudget(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** Takes {@code bytes} if they fit, and says whether they did. */
    boolean take(long bytes) {
        if (bytes > limitBytes - usedBytes) {
            return false;
        }
        usedBytes += bytes;
        return true;
    }

    /** The bytes a string may take serialized (UTF-8, at most 3 bytes per char), null counting as empty. */
    static long bytes(String value) {
        return value == null ? 0 : 3L * value.length();
    }
}
