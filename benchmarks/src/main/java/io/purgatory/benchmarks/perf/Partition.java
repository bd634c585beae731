package io.purgatory.benchmarks.perf;

/**
 * A partition of the high-watermark workload: its watch key and its high watermark, which the
 * follower (the driver thread) advances and the operations waiting for an offset read in
 * {@code tryComplete}.
 *
 * <p>Thread-safe: one writer, the driver, sets {@code advancedAtNanos} and then the volatile
 * {@code highWatermark}; readers read the high watermark first, so they see the advance time of
 * that high watermark or of a later one.
 */
final class Partition {

    /** An offset the high watermark never reaches: a request waiting for it can only expire. */
    static final long NEVER = Long.MAX_VALUE;

    private final WatchKey key;
    private volatile long advancedAtNanos;
    private volatile long highWatermark;

    Partition(int id) {
        this.key = new WatchKey(id);
    }

    WatchKey key() {
        return key;
    }

    long highWatermark() {
        return highWatermark;
    }

    /** Moves the high watermark up to hw, now. Driver thread only. */
    void advanceTo(long hw) {
        advancedAtNanos = System.nanoTime();
        highWatermark = hw;
    }

    /**
     * When the high watermark reached offset ({@code System.nanoTime()} of the advance that moved it
     * there, or of a later one), or {@link Completable#NOT_COMPLETABLE} if it has not.
     */
    long reachedAtNanos(long offset) {
        return highWatermark >= offset ? advancedAtNanos : Completable.NOT_COMPLETABLE;
    }
}
