package io.purgatory.benchmarks.timer;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Netty's {@link HashedWheelTimer} at our resolution: a 1 ms tick (Netty's default is 100 ms) and
 * 512 buckets (its default). It is a single-level wheel: a task more than one revolution (512 ms)
 * away waits in its bucket with a round count, and the worker walks the whole bucket every time it
 * comes round, so pending tasks cost work on every revolution. Adds and cancels are queued to the
 * worker thread, which wakes every tick and runs expired tasks itself. Thread-safe.
 */
final class NettyTimer implements TimerUnderTest {

    private static final long TICK_MS = 1;
    private static final int TICKS_PER_WHEEL = 512;

    private final HashedWheelTimer timer;

    NettyTimer() {
        ThreadFactory daemon = r -> {
            Thread thread = new Thread(r, "bench-netty-worker");
            thread.setDaemon(true);
            return thread;
        };
        timer = new HashedWheelTimer(daemon, TICK_MS, TimeUnit.MILLISECONDS, TICKS_PER_WHEEL);
        timer.start();
    }

    @Override
    public Scheduler<?> scheduler(Runnable onExpiry) {
        io.netty.util.TimerTask task = timeout -> onExpiry.run(); // one shared task: Netty allocates the handle
        return new Scheduler<Timeout>() {
            @Override
            public Timeout add(long delayMs) {
                return timer.newTimeout(task, delayMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void cancel(Timeout timeout) {
                timeout.cancel();
            }
        };
    }

    /** One shared task re-adds itself after each run: each run allocates a new {@code HashedWheelTimeout}. */
    @Override
    public Recurring recurring(Runnable onRun, long periodMs) {
        io.netty.util.TimerTask rearm = new io.netty.util.TimerTask() {
            @Override
            public void run(Timeout timeout) {
                onRun.run();
                try {
                    timer.newTimeout(this, periodMs, TimeUnit.MILLISECONDS);
                } catch (IllegalStateException stopped) {
                    // the timer was stopped during this run: the task ends with it
                }
            }
        };
        return initialDelayMs -> timer.newTimeout(rearm, initialDelayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.stop();
    }
}
