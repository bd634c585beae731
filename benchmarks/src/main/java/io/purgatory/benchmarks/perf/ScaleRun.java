package io.purgatory.benchmarks.perf;

import java.util.concurrent.TimeUnit;

/**
 * A scale run against one purgatory: offer many operations that neither complete nor expire while
 * held (an hour's timeout, none made completable) and weigh the heap before and after, each time
 * after a full collection. The difference divided by the count is the memory a pending operation
 * costs, its own object included (the same class layout for both purgatories).
 *
 * <p>Not thread-safe: the calling thread offers.
 */
final class ScaleRun {

    private static final long HOLD_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);

    private final Workload workload;
    private final int count;
    private final HeapGauge heap;
    private final CpuClock cpu;

    /** @param workload its keys and keys per request are used; its timeout and completions are not */
    ScaleRun(Workload workload, int count, HeapGauge heap, CpuClock cpu) {
        this.workload = workload.holding(HOLD_TIMEOUT_MS);
        this.count = count;
        this.heap = heap;
        this.cpu = cpu;
    }

    ScaleResult measure(PurgatoryImplementation implementation) {
        heap.afterFullGc();
        try (PurgatoryUnderTest purgatory = implementation.open(new Outcomes())) {
            LoadGenerator generator = new LoadGenerator(workload, purgatory);
            long heapBefore = heap.afterFullGc();
            long cpuStart = cpu.processNanos();
            long start = System.nanoTime();
            generator.offer(count);
            long elapsed = System.nanoTime() - start;
            long offerCpu = cpu.processNanos() - cpuStart;
            long heapHolding = heap.afterFullGc();
            return new ScaleResult(count, purgatory.pending(), heapBefore, heapHolding, elapsed, offerCpu);
        }
    }
}
