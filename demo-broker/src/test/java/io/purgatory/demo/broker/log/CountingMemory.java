package io.purgatory.demo.broker.log;

/**
 * A log's memory as a budget of {@code room} bytes sees it: what the log holds in it. Not
 * thread-safe, as a log's memory is used under the partition's lock.
 */
final class CountingMemory implements LogMemory {
    private final long room;
    private long held;

    CountingMemory(long room) {
        this.room = room;
    }

    /** Bytes held now. */
    long held() {
        return held;
    }

    @Override
    public boolean tryHold(long bytes) {
        if (held + bytes > room) {
            return false;
        }
        held += bytes;
        return true;
    }

    @Override
    public void release(long bytes) {
        held -= bytes;
    }
}
