package io.purgatory.benchmarks.timer;

import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's {@link SystemTimer}, driven the way Kafka drives it. Kafka's timer has no thread of its
 * own: someone must call {@code advanceClock(timeoutMs)}, which waits up to that long on a
 * {@code DelayQueue} of buckets and, when one is due, advances the wheel and flushes it (expired
 * tasks go to the timer's executor thread). Kafka's {@link SystemTimerReaper} is that someone: a
 * thread that calls {@code advanceClock(200)} in a loop, the same loop the purgatory's
 * {@code ExpiredOperationReaper} runs. Each add allocates a {@code TimerTaskEntry} besides the task.
 * Thread-safe.
 */
final class KafkaTimer implements TimerUnderTest {

    private final SystemTimerReaper timer =
            new SystemTimerReaper("bench-kafka-reaper", new SystemTimer("bench-kafka"));

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

    /** Kafka's tasks are single-use: each run adds a new task (and Kafka a new entry for it). */
    @Override
    public Recurring recurring(Runnable onRun, long periodMs) {
        return initialDelayMs -> timer.add(new Rearm(initialDelayMs, periodMs, onRun));
    }

    @Override
    public void close() {
        try {
            timer.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing Kafka's timer failed", e);
        }
    }

    /** A single-use task that adds its successor, a period later, after running. */
    private final class Rearm extends TimerTask {
        private final long periodMs;
        private final Runnable onRun;

        Rearm(long delayMs, long periodMs, Runnable onRun) {
            super(delayMs);
            this.periodMs = periodMs;
            this.onRun = onRun;
        }

        @Override
        public void run() {
            onRun.run();
            timer.add(new Rearm(periodMs, periodMs, onRun));
        }
    }

    /** A single-use task; Kafka's timer wraps it in an entry of its own. */
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
