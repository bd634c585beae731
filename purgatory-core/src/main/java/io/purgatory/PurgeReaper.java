package io.purgatory;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A purgatory's purge reaper thread: looks whether a purge is due (every quarter of a millisecond
 * after a purge, backing off to every {@value #POLL_MS} ms while it finds nothing to do, so that an
 * idle purgatory costs ten wake-ups a second and a busy one gets its tombstones removed about as
 * soon as they pass the threshold), purges once it is, then rests {@value #REST_FACTOR} times as
 * long as the purge took, so that it spends at most a fifth of a core on purges however fast
 * operations complete (a purge walks every list: under a high completion rate the threshold is
 * crossed again at once, and purging back to back took a core's quarter from the timer's threads).
 * Completions never wake it: updating one shared count on every completion, and waking a thread
 * from it, cost the completing threads more than the reaper's polls. Tombstones reference nothing,
 * so the wait costs a few bytes per tombstone, not the operations' payloads.
 *
 * <p>Thread-safe: {@link #stop()} may be called from any thread; {@code stopped} is volatile.
 */
final class PurgeReaper {

    /** The reaper rests this many times as long as its last purge took. */
    private static final long REST_FACTOR = 4;
    /** The longest wait between two looks at the tombstone count. */
    private static final long POLL_MS = 100;
    /** The shortest wait: the first look after a purge. */
    private static final long POLL_MIN_NANOS = 250_000;

    private final BooleanSupplier purgeDue;
    private final Runnable purge;
    private final Thread thread;
    private volatile boolean stopped;

    private PurgeReaper(String name, BooleanSupplier purgeDue, Runnable purge) {
        this.purgeDue = purgeDue;
        this.purge = purge;
        this.thread = new Thread(this::reap, name + "-purge-reaper");
        thread.setDaemon(true);
    }

    /** Starts the reaper of purgatory {@code name}: it runs {@code purge} whenever {@code purgeDue} says so. */
    static PurgeReaper start(String name, BooleanSupplier purgeDue, Runnable purge) {
        PurgeReaper reaper = new PurgeReaper(name, purgeDue, purge);
        reaper.thread.start();
        return reaper;
    }

    /** Stops the reaper and waits for its thread to end (a purge under way finishes first). */
    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void reap() {
        long pollNanos = POLL_MIN_NANOS;
        while (!stopped) {
            if (!purgeDue.getAsBoolean()) {
                LockSupport.parkNanos(this, pollNanos); // stop() unparks it
                pollNanos = Math.min(2 * pollNanos, POLL_MS * 1_000_000L);
                continue;
            }
            pollNanos = POLL_MIN_NANOS;
            long start = System.nanoTime();
            purge.run();
            long restUntil = System.nanoTime() + REST_FACTOR * (System.nanoTime() - start);
            for (long rest; !stopped && (rest = restUntil - System.nanoTime()) > 0; ) {
                LockSupport.parkNanos(this, rest);
            }
        }
    }
}
