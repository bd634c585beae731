package io.purgatory.benchmarks.perf;

import java.util.function.Function;

/**
 * A load run against one purgatory: the driver's priming, a warm-up, then a measured window at the
 * workload's rate (or none), then a full collection with the pending operations still held. A fresh purgatory per run;
 * the heap is collected first so that one run's garbage is not the next one's.
 *
 * <p>Not thread-safe: the calling thread is the driver.
 */
final class LoadRun {

    private final Function<PurgatoryUnderTest, LoadDriver> drivers;
    private final long warmupNanos;
    private final long measuredNanos;
    private final HeapGauge heap;
    private final CpuClock cpu;

    /** @param drivers makes the driver of a fresh purgatory, the same workload for every run */
    LoadRun(Function<PurgatoryUnderTest, LoadDriver> drivers, long warmupNanos, long measuredNanos, HeapGauge heap,
            CpuClock cpu) {
        this.drivers = drivers;
        this.warmupNanos = warmupNanos;
        this.measuredNanos = measuredNanos;
        this.heap = heap;
        this.cpu = cpu;
    }

    LoadResult measure(PurgatoryImplementation implementation) {
        heap.afterFullGc();
        Outcomes outcomes = new Outcomes();
        try (PurgatoryUnderTest purgatory = implementation.open(outcomes)) {
            LoadDriver load = drivers.apply(purgatory);
            load.prime();
            heap.afterFullGc(); // what priming allocated is not the warm-up's, nor the window's, garbage
            load.run(warmupNanos);

            long driver = Thread.currentThread().getId();
            heap.resetPeak();
            outcomes.start();
            long processCpuStart = cpu.processNanos();
            long driverCpuStart = cpu.threadNanos(driver);
            long start = System.nanoTime();
            long offered = load.run(measuredNanos);
            long elapsed = System.nanoTime() - start;
            Outcomes.Snapshot recorded = outcomes.stop();
            long processCpu = cpu.processNanos() - processCpuStart;
            long driverCpu = cpu.threadNanos(driver) - driverCpuStart;
            int pendingAtEnd = purgatory.pending();

            long heapAfterFullGc = heap.afterFullGc();
            return new LoadResult(offered, elapsed, recorded, processCpu, driverCpu, pendingAtEnd,
                    heap.peakAfterGc(), heapAfterFullGc);
        }
    }
}
