package io.purgatory.benchmarks.perf;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Heap in use after garbage collections: the peak over every collection since {@link #resetPeak()},
 * from the collectors' notifications, and the heap left by a full collection forced now.
 *
 * <p>With G1 a young collection leaves old-generation garbage in place, so the peak over-states the
 * live set; {@link #afterFullGc()} (a {@code System.gc()}, a full stop-the-world collection unless
 * {@code -XX:+ExplicitGCInvokesConcurrent}) is the honest live-set figure.
 *
 * <p>Thread-safe: notifications arrive on a JMX thread; the peak is an atomic, the reset time volatile.
 */
public final class HeapGauge implements AutoCloseable {

    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP)
            .map(MemoryPoolMXBean::getName)
            .collect(Collectors.toUnmodifiableSet());
    private final LongAccumulator peakAfterGc = new LongAccumulator(Math::max, 0);
    /** JVM uptime at the last reset: a collection that started before it belongs to an earlier run. */
    private volatile long resetUptimeMs;
    private final NotificationListener listener = this::onNotification;
    private final List<NotificationEmitter> emitters = new ArrayList<>();

    public HeapGauge() {
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    /** Forgets the peak so far. */
    public void resetPeak() {
        resetUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
        peakAfterGc.reset();
    }

    /** The largest heap in use after any collection since {@link #resetPeak()}, in bytes. */
    public long peakAfterGc() {
        return peakAfterGc.get();
    }

    /** Forces a full collection and returns the heap in use after it, in bytes. */
    public long afterFullGc() {
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        peakAfterGc.accumulate(used);
        return used;
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // already gone
            }
        }
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        if (info.getGcInfo().getStartTime() < resetUptimeMs) {
            return; // notifications arrive late: this one is about the previous run
        }
        long used = 0;
        for (var pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                MemoryUsage usage = pool.getValue();
                used += usage.getUsed();
            }
        }
        peakAfterGc.accumulate(used);
    }
}
