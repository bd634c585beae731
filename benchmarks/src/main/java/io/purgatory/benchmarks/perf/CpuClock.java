package io.purgatory.benchmarks.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time consumed, in nanoseconds: by the whole process (every thread: driver, purgatory, timer,
 * GC, JIT) and by one thread (the driver).
 *
 * <p>Thread-safe: it only reads the platform MXBeans.
 */
public final class CpuClock {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    /** CPU time of the whole process so far. */
    public long processNanos() {
        return os.getProcessCpuTime();
    }

    /** CPU time of a live thread so far. */
    public long threadNanos(long threadId) {
        return threads.getThreadCpuTime(threadId);
    }
}
