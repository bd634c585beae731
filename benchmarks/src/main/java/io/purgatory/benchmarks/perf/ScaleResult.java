package io.purgatory.benchmarks.perf;

/**
 * What holding many pending operations cost one purgatory.
 *
 * @param offered operations offered (none completes, none expires while held)
 * @param held operations the purgatory reported pending once all were offered
 * @param heapBefore heap in use after a full collection, the empty purgatory already built
 * @param heapHolding heap in use after a full collection, all operations held
 * @param offerNanos wall time to offer them all, on one thread
 * @param offerCpuNanos process CPU time meanwhile
 */
record ScaleResult(int offered, int held, long heapBefore, long heapHolding, long offerNanos, long offerCpuNanos) {

    /** Heap per pending operation: the operation itself, its watch entries and its timer entry. */
    double bytesPerOperation() {
        return (double) (heapHolding - heapBefore) / offered;
    }

    double offerRate() {
        return offered * 1e9 / offerNanos;
    }

    double cpuPerOffer() {
        return (double) offerCpuNanos / offered;
    }
}
