package io.purgatory.benchmarks.timer;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's {@link ScheduledThreadPoolExecutor} with one thread and
 * {@code setRemoveOnCancelPolicy(true)}, so that a cancelled task leaves the queue at once (O(log n)
 * in its binary heap) instead of lingering until its deadline. Adds and cancels take the queue's
 * lock; expired tasks run on the pool thread. Thread-safe.
 */
final class JdkTimer implements TimerUnderTest {

    private final ScheduledThreadPoolExecutor executor;

    JdkTimer() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "bench-jdk-timer");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Scheduler<?> scheduler(Runnable onExpiry) {
        return new Scheduler<ScheduledFuture<?>>() {
            @Override
            public ScheduledFuture<?> add(long delayMs) {
                return executor.schedule(onExpiry, delayMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void cancel(ScheduledFuture<?> future) {
                future.cancel(false);
            }
        };
    }

    @Override
    public Recurring recurring(Runnable onRun, long periodMs) {
        return initialDelayMs -> executor.scheduleAtFixedRate(onRun, initialDelayMs, periodMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
