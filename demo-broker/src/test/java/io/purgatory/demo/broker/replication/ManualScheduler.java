package io.purgatory.demo.broker.replication;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A {@link SimulatedFollowers.Scheduler} on a virtual clock: tasks run on the test's thread, in
 * time order (ties in the order scheduled), when the test calls {@link #runUntil}. Not thread-safe:
 * one test thread drives it.
 */
final class ManualScheduler implements SimulatedFollowers.Scheduler {
    private record Task(long dueMs, long seq, Runnable action, long periodMs) {
    }

    private final PriorityQueue<Task> tasks =
            new PriorityQueue<>(Comparator.comparingLong(Task::dueMs).thenComparingLong(Task::seq));
    private long nowMs;
    private long nextSeq;
    private boolean closed;

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
        add(task, delayMs, 0);
    }

    @Override
    public void scheduleAtFixedRate(Runnable task, long initialDelayMs, long periodMs) {
        add(task, initialDelayMs, periodMs);
    }

    /** Runs every task due at or before {@code timeMs}, each at its time, then sets the clock to {@code timeMs}. */
    void runUntil(long timeMs) {
        while (!tasks.isEmpty() && tasks.peek().dueMs() <= timeMs) {
            Task task = tasks.poll();
            nowMs = task.dueMs();
            task.action().run();
            if (task.periodMs() > 0) {
                add(task.action(), task.periodMs(), task.periodMs());
            }
        }
        nowMs = timeMs;
    }

    /** Tasks waiting that run once (fetches in flight, in {@link SimulatedFollowers}). */
    int oneShotTasks() {
        return (int) tasks.stream().filter(t -> t.periodMs() == 0).count();
    }

    @Override
    public void close() {
        closed = true;
        tasks.clear();
    }

    private void add(Runnable task, long delayMs, long periodMs) {
        if (!closed) {
            tasks.add(new Task(nowMs + delayMs, nextSeq++, task, periodMs));
        }
    }
}
