package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import java.util.Map;
import java.util.TreeMap;

/**
 * A deliberately broken copy of {@link MockTimer}, for the model checks: each {@link Bug} is one
 * change from the original, and a model check must catch it. Everything else is as in the original.
 *
 * <p>Thread-safe as the original claims to be, except for its bug.
 */
public final class BrokenMockTimer extends TaskHost implements Timer {

    /** What is broken. */
    public enum Bug {
        /**
         * {@code add} finds the bucket of the task's deadline under the monitor but links the task
         * after leaving it: an {@code advance} that empties and unmaps that bucket meanwhile orphans
         * the task, which then never runs.
         */
        LINKS_OUTSIDE_MONITOR,
        /**
         * {@code advance} checks that a due task is not cancelled, then runs it, without claiming it
         * (the compare-and-set from SCHEDULED to EXPIRED): a {@code cancel} in between wins too, and
         * the task both runs and reports itself cancelled.
         */
        RUNS_WITHOUT_CLAIM
    }

    private final Bug bug;
    private final TreeMap<Long, TaskList> byDeadline = new TreeMap<>();
    private long now;
    private int size;
    private boolean closed;

    public BrokenMockTimer(Bug bug) {
        this.bug = bug;
    }

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
    void start(TimerNode task, long deadlineMs) {
        TaskList bucket;
        synchronized (this) {
            if (closed) {
                TimerNodes.leaveQueue(task, TimerNodes.CANCELLED);
                throw new IllegalStateException("MockTimer is closed");
            }
            if (!TimerNodes.leaveQueue(task, TimerNodes.SCHEDULED)) {
                return;
            }
            TimerNodes.dueTick(task, deadlineMs);
            bucket = byDeadline.computeIfAbsent(deadlineMs, d -> new TaskList());
            size++;
            if (bug != Bug.LINKS_OUTSIDE_MONITOR) {
                bucket.add(task);
                return;
            }
        }
        bucket.add(task); // the bug: the bucket may have been emptied and unmapped since
    }

    @Override
    synchronized void reschedule(TimerNode task, long deadlineMs) {
        if (closed) {
            TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED);
            return;
        }
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.SCHEDULED)) {
            TimerNodes.dueTick(task, deadlineMs);
            byDeadline.computeIfAbsent(deadlineMs, d -> new TaskList()).add(task);
        }
    }

    @Override
    synchronized void finished(TimerNode task) {
        if (TimerNodes.transition(task, TimerNodes.FIRING, TimerNodes.EXPIRED) && !closed) {
            size--;
        }
    }

    @Override
    synchronized long deadlineAfter(long delayMs) {
        return now + Math.min(delayMs, Long.MAX_VALUE - now);
    }

    @Override
    long deadlineMsOfTick(long dueTick) {
        return dueTick;
    }

    /** As {@link MockTimer#advance}. */
    public void advance(long ms) {
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
                if (first.getValue().isEmpty()) {
                    byDeadline.remove(first.getKey());
                }
                boolean fired = bug == Bug.RUNS_WITHOUT_CLAIM ? TimerNodes.state(task) != TimerNodes.CANCELLED : Nodes.fire(task);
                if (!fired || !Nodes.recurs(task)) {
                    size--;
                }
                if (!fired) {
                    continue;
                }
            }
            Nodes.runDue(task); // with RUNS_WITHOUT_CLAIM, a cancel may have won since the check above
        }
    }

    @Override
    public synchronized int size() {
        return size;
    }

    @Override
    public synchronized void close() {
        closed = true;
        byDeadline.clear();
        size = 0;
    }

    @Override
    synchronized void cancelled(TimerNode task, int previousState) {
        if (closed) {
            return;
        }
        if (previousState == TimerNodes.FIRING) {
            size--;
            return;
        }
        if (!TimerNodes.isLinked(task)) {
            return;
        }
        if (TaskList.unlink(task) != null) {
            byDeadline.remove(TimerNodes.dueTick(task));
        }
        size--;
    }
}
