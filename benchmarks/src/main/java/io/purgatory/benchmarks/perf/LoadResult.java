package io.purgatory.benchmarks.perf;

/**
 * What one purgatory did during the measured window of a load run.
 *
 * @param offered requests offered in the window
 * @param elapsedNanos the window's length
 * @param outcomes completions and expiries recorded in the window
 * @param processCpuNanos CPU time of the whole process in the window
 * @param driverCpuNanos CPU time of the driver thread (offers and completions) in the window
 * @param pendingAtEnd operations neither completed nor expired when the window closed
 * @param peakHeapAfterGc the largest heap in use after a collection, the final forced one included
 * @param heapAfterFullGc heap in use after a full collection forced right after the window, with the
 *     pending operations still held
 *
 * <p>Immutable, so thread-safe.
 */
record LoadResult(long offered, long elapsedNanos, Outcomes.Snapshot outcomes, long processCpuNanos,
                  long driverCpuNanos, int pendingAtEnd, long peakHeapAfterGc, long heapAfterFullGc) {

    double achievedRate() {
        return offered * 1e9 / elapsedNanos;
    }

    double processCpuPerRequest() {
        return perRequest(processCpuNanos);
    }

    double driverCpuPerRequest() {
        return perRequest(driverCpuNanos);
    }

    /** Everything but the driver: the purgatory's callers' share inside it, its threads, GC and JIT. */
    double nonDriverCpuPerRequest() {
        return perRequest(processCpuNanos - driverCpuNanos);
    }

    private double perRequest(long nanos) {
        return offered == 0 ? Double.NaN : (double) nanos / offered;
    }
}
