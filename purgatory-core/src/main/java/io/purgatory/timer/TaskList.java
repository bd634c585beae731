package io.purgatory.timer;

/**
 * An intrusive doubly linked FIFO list of tasks, linked through the tasks' own {@code prev},
 * {@code next} and {@code list} fields. A task is in at most one list at a time. O(1) add and remove.
 *
 * <p>Not thread-safe: the owner confines it (a {@link SystemTimer}'s reaper thread, or a
 * {@link MockTimer}'s monitor).
 */
class TaskList {

    private TimerNode head;
    private TimerNode tail;

    final boolean isEmpty() {
        return head == null;
    }

    final void add(TimerNode task) {
        task.list = this;
        task.next = null;
        task.prev = tail;
        if (tail == null) {
            head = task;
        } else {
            tail.next = task;
        }
        tail = task;
    }

    /** Unlinks task, which must be in this list. */
    final void remove(TimerNode task) {
        TimerNode p = task.prev;
        TimerNode n = task.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.prev = p;
        }
        task.prev = null;
        task.next = null;
        task.list = null;
    }

    /** Removes and returns the first task, or null if the list is empty. */
    final TimerNode poll() {
        TimerNode first = head;
        if (first != null) {
            remove(first);
        }
        return first;
    }
}
