package io.purgatory.demo.broker.log;

/**
 * Where a {@link PartitionLog} accounts for the heap its batches hold: the broker's memory budget,
 * seen from the log layer. {@link PartitionLog} asks before it appends and tells after it drops.
 *
 * <p>Implementations are thread-safe: every partition's log calls the same one, each under its own
 * partition's lock.
 */
public interface LogMemory {
    /** Never refuses, counts nothing: a log on its own (tests, tools). */
    LogMemory UNBOUNDED = new LogMemory() {
        @Override
        public boolean tryHold(long bytes) {
            return true;
        }

        @Override
        public void release(long bytes) {
        }
    };

    /**
     * Takes {@code bytes} more for an append.
     *
     * @return false when there is no room: the log then appends nothing
     */
    boolean tryHold(long bytes);

    /** Gives back {@code bytes} the log held (batches dropped). */
    void release(long bytes);
}
