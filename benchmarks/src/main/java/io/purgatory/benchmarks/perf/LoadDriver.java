package io.purgatory.benchmarks.perf;

/**
 * What a {@link LoadRun} drives its purgatory with, from the calling thread: the generated
 * requests of one mode ({@link LoadGenerator} for RATE and MAX, {@link HighWatermarkDriver} for HWM).
 *
 * <p>Implementations are not thread-safe: one driver per thread.
 */
interface LoadDriver {

    /**
     * Brings the purgatory to the state the workload measures, before the warm-up: for example
     * parks the operations that a steady state holds. Nothing by default.
     */
    default void prime() {
    }

    /** Offers requests, and completes those whose condition comes true, for durationNanos; returns how many it offered. */
    long run(long durationNanos);
}
