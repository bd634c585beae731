package io.purgatory.benchmarks.perf;

/**
 * A load run against one purgatory: a warm-up, then a measured window at the workload's rate (or
 * none), then a full collection with the pending operations still held. A fresh purgatory per run;
 * the heap is collected first so that one run's garbage is not the next one's.
 *
 * <p>Not thread-safe: the calling thread is the driver.
 */
final class LoadRun {

    private final Workload workload;
    private final long warmupNanos;
    private final long measuredNanos;
    private final HeapGauge heap;
    private final CpuClock cpu;

    LoadRun(Workload workload, long warmupNanos, long measuredNanos, HeapGauge heap, CpuClock cpu) {
        this.workload = workload;
        this.warmupNanos = warmupNanos;
        this.measuredNanos = measuredNanos;
        this.heap = heap;
        this.cpu = cpu;
    }

    LoadResult measure(PurgatoryImplementation implementation) {
        heap.afterFullGc();
        Outcomes outcomes = new Outcomes();
        try (PurgatoryUnderTest purgatory = implementation.open(outcomes)) {
            LoadGenerator generator = new LoadGenerator(workload, purgatory);
            generator.run(warmupNanos);

            long driver = Thread.currentThread().getId();
            heap.resetPeak();
            outcomes.start();
            long processCpuStart = cpu.processNanos();
            long driverCpuStart = cpu.threadNanos(driver);
            long start = System.nanoTime();
            long offered = generator.run(measuredNanos);
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
