package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Timer} on manual time, for deterministic tests of code that schedules tasks.
 *
 * <p>Time starts at 0 and moves only through {@link #advance(long)}, which runs every task that
 * became due, in deadline order (tasks with the same deadline in the order they were added), on
 * the calling thread. While a task runs, {@link #nowMs()} reads that task's deadline, so a task
 * that adds another task schedules it relative to its own deadline, and the new task runs within
 * the same {@code advance} if it falls due by the target time. So a recurring callback runs every
 * occurrence that falls due, in order, within one {@code advance}: a fixed rate of 10 ms runs ten
 * times in {@code advance(100)}. A task that calls {@code advance} itself models a run that takes that
 * long: the tasks due meanwhile run inside that call, and a fixed rate then skips the runs it missed.
 *
 * <p>Thread-safe: every field is guarded by the monitor of this timer ({@code @GuardedBy("this")},
 * checked by Error Prone). Tasks run without the
 * monitor held, so they may add and cancel tasks, from any thread.
 */
public final class MockTimer extends TaskHost implements Timer {

    private static final Logger LOG = LoggerFactory.getLogger(MockTimer.class);

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
        start(task, deadlineAfter(task.delayMs()));
    }

    @Override
    synchronized void start(TimerNode task, long deadlineMs) {
        if (closed) {
            TimerNodes.leaveQueue(task, TimerNodes.CANCELLED);
            throw new IllegalStateException("MockTimer is closed");
        }
        if (TimerNodes.leaveQueue(task, TimerNodes.SCHEDULED)) { // else cancelled between claim and here
            link(task, deadlineMs);
            size++;
        }
    }

    @Override
    synchronized void reschedule(TimerNode task, long deadlineMs) {
        if (closed) {
            TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED); // what was pending is dropped
            return;
        }
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.SCHEDULED)) { // else cancelled during its run
            link(task, deadlineMs); // still counted in size
        }
    }

    @Override
    synchronized void finished(TimerNode task) {
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED) && !closed) {
            size--;
        }
    }

    @GuardedBy("this")
    private void link(TimerNode task, long deadlineMs) {
        TimerNodes.dueTick(task, deadlineMs);
        byDeadline.computeIfAbsent(deadlineMs, d -> new TaskList()).add(task);
    }

    @Override
    synchronized long deadlineAfter(long delayMs) {
        return now + Math.min(delayMs, Long.MAX_VALUE - now);
    }

    @Override
    long deadlineMsOfTick(long dueTick) {
        return dueTick;
    }

    /**
     * {@link #advance(long)} by a {@link Duration}, in whole milliseconds (a fraction of one is
     * dropped).
     *
     * @param time how far to move the clock; not negative
     * @throws IllegalArgumentException if time is negative
     */
    public void advance(Duration time) {
        advance(Delays.toMs(time, "time"));
    }

    /**
     * Moves time forward by {@code ms} and runs, on this thread, every task whose deadline is
     * reached, in deadline order. An exception thrown by a task propagates to the caller with the
     * clock at the target time; the tasks due after it stay due and run on the next call.
     *
     * @param ms how far to move the clock, in milliseconds; not negative
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
            TimerNode task;
            synchronized (this) {
                Map.Entry<Long, TaskList> first = byDeadline.firstEntry();
                if (first == null || first.getKey() > target) {
                    now = Math.max(now, target);
                    return;
                }
                now = Math.max(now, first.getKey());
                task = first.getValue().poll();
                assert task != null; // an empty bucket leaves byDeadline
                if (first.getValue().isEmpty()) {
                    byDeadline.remove(first.getKey());
                }
                boolean fired = Nodes.fire(task);
                if (!fired || !Nodes.recurs(task)) {
                    size--; // a recurring task that fired stays pending until cancelled or ended
                }
                if (!fired) {
                    continue; // cancelled; its canceller finds it unlinked
                }
            }
            try {
                Nodes.runDue(task);
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

    /**
     * Drops every pending task without running it; recurring callbacks are not scheduled again; the
     * number of tasks that were pending is logged at INFO. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("MockTimer closed: {} pending tasks dropped", size);
        byDeadline.clear();
        size = 0;
    }

    @Override
    synchronized void cancelled(TimerNode task, int previousState) {
        if (closed) {
            return; // dropped by close()
        }
        if (previousState == TimerNodes.FIRING) {
            size--; // a recurring task cancelled while out of the map, to run
            return;
        }
        if (!TimerNodes.isLinked(task)) {
            return; // not linked yet, or already taken by advance(), which counted it
        }
        if (TaskList.unlink(task) != null) {
            byDeadline.remove(TimerNodes.dueTick(task));
        }
        size--;
    }

    @Override
    public synchronized String toString() {
        return "MockTimer[now " + now + " ms, " + size + " tasks]";
    }
}
