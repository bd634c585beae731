package io.purgatory.benchmarks.timer;

import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerTask;

/**
 * Our {@link SystemTimer} with its defaults (another wheel size with {@code -Dwheel=N}). Its reaper thread owns the wheel; expired tasks run on
 * its executor thread. Thread-safe.
 */
final class PurgatoryTimer implements TimerUnderTest {

    private final SystemTimer timer;

    /** With its defaults: due tasks run on its executor thread. */
    PurgatoryTimer() {
        this(SystemTimer.TaskThread.EXECUTOR);
    }

    PurgatoryTimer(SystemTimer.TaskThread taskThread) {
        this.timer = new SystemTimer("bench-purgatory", 1, Integer.getInteger("wheel", SystemTimer.DEFAULT_WHEEL_SIZE), taskThread);
    }

    @Override
    public Scheduler<?> scheduler(Runnable onExpiry) {
        return new Scheduler<Task>() {
            @Override
            public Task add(long delayMs) {
                Task task = new Task(delayMs, onExpiry);
                timer.add(task);
                return task;
            }

            @Override
            public void cancel(Task task) {
                task.cancel();
            }
        };
    }

    @Override
    public Recurring recurring(Runnable onRun, long periodMs) {
        return initialDelayMs -> timer.scheduleAtFixedRate(onRun, initialDelayMs, periodMs);
    }

    @Override
    public void close() {
        timer.close();
    }

    /** A single-use task: our timer links the task itself into its buckets. */
    private static final class Task extends TimerTask {
        private final Runnable onExpiry;

        Task(long delayMs, Runnable onExpiry) {
            super(delayMs);
            this.onExpiry = onExpiry;
        }

        @Override
        public void run() {
            onExpiry.run();
        }
    }
}
