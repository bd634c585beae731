package io.purgatory.timer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link Timer} on manual time, for deterministic tests of code that schedules tasks.
 *
 * <p>Time starts at 0 and moves only through {@link #advance(long)}, which runs every task that
 * became due, in deadline order (tasks with the same deadline in the order they were added), on
 * the calling thread. While a task runs, {@link #nowMs()} reads that task's deadline, so a task
 * that adds another task schedules it relative to its own deadline, and the new task runs within
 * the same {@code advance} if it falls due by the target time.
 *
 * <p>Thread-safe: every field is guarded by the monitor of this timer ({@code @GuardedBy("this")},
 * checked by Error Prone). Tasks run without the
 * monitor held, so they may add and cancel tasks, from any thread.
 */
public final class MockTimer extends TaskHost implements Timer {

    /** Deadline in ms to the tasks due then, in add order. */
    @GuardedBy("this")
    private final TreeMap<Long, TaskList> byDeadline = new TreeMap<>();
    @GuardedBy("this")
    private long now;
    @GuardedBy("this")
    private int size;
    @GuardedBy("this")
    private boolean closed;

    @Override
    public synchronized long nowMs() {
        return now;
    }

    @Override
    public void add(TimerTask task) {
        if (!task.claim(this)) {
            return;
        }
        synchronized (this) {
            if (closed) {
                task.transition(TimerTask.QUEUED, TimerTask.CANCELLED);
                throw new IllegalStateException("MockTimer is closed");
            }
            if (!task.transition(TimerTask.QUEUED, TimerTask.SCHEDULED)) {
                return; // cancelled between claim and here
            }
            long deadline = now + Math.min(task.delayMs(), Long.MAX_VALUE - now);
            task.dueTick = deadline;
            byDeadline.computeIfAbsent(deadline, d -> new TaskList()).add(task);
            size++;
        }
    }

    /**
     * Moves time forward by {@code ms} and runs, on this thread, every task whose deadline is
     * reached, in deadline order. An exception thrown by a task propagates to the caller with the
     * clock at the target time; the tasks due after it stay due and run on the next call.
     *
     * @throws IllegalArgumentException if ms is negative
     */
    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("ms must not be negative: " + ms);
        }
        long target;
        synchronized (this) {
            target = now + Math.min(ms, Long.MAX_VALUE - now);
        }
        while (true) {
            TimerTask task;
            synchronized (this) {
                Map.Entry<Long, TaskList> first = byDeadline.firstEntry();
                if (first == null || first.getKey() > target) {
                    now = Math.max(now, target);
                    return;
                }
                now = Math.max(now, first.getKey());
                task = first.getValue().poll();
                if (first.getValue().isEmpty()) {
                    byDeadline.remove(first.getKey());
                }
                size--;
                if (!task.transition(TimerTask.SCHEDULED, TimerTask.EXPIRED)) {
                    continue; // cancelled; its canceller finds it unlinked
                }
            }
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                synchronized (this) {
                    now = Math.max(now, target); // time has moved; the tasks still due run next call
                }
                throw e;
            }
        }
    }

    @Override
    public synchronized int size() {
        return size;
    }

    /** Drops every pending task without running it. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        byDeadline.clear();
        size = 0;
    }

    @Override
    synchronized void cancelled(TimerTask task, int previousState) {
        TaskList list = task.list;
        if (list == null || closed) {
            return; // not linked yet, already taken by advance(), or dropped by close()
        }
        list.remove(task);
        if (list.isEmpty()) {
            byDeadline.remove(task.dueTick);
        }
        size--;
    }

    @Override
    public synchronized String toString() {
        return "MockTimer[now " + now + " ms, " + size + " tasks]";
    }
}
