package io.purgatory.benchmarks.perf;

/**
 * An offered operation, seen from the driver: it waits until the driver makes its condition hold.
 * Implementations are thread-safe: the driver makes it completable while the purgatory's threads
 * may be trying or expiring it.
 */
interface Completable {

    /** The time a condition that does not hold yet came to hold: never. */
    long NOT_COMPLETABLE = Long.MIN_VALUE;

    /**
     * Makes the operation's condition hold from now on; the next {@code tryComplete} completes it.
     * Called once, by the driver thread, just before it calls {@code checkAndComplete}.
     */
    void makeCompletable();
}
