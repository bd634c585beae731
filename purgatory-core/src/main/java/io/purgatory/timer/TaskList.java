package io.purgatory.timer;

import org.jspecify.annotations.Nullable;

/**
 * An intrusive doubly linked FIFO list of nodes: circular, with this object as its sentinel, linked
 * through the nodes' own {@code prev} and {@code next}. A node is in at most one list at a time, and
 * needs no reference to it: {@link #unlink} joins its neighbours, and tells whether that left a
 * list empty. O(1) add and remove. A sentinel is a node only for its links; it is never scheduled.
 *
 * <p>Not thread-safe: the owner confines it (a {@link SystemTimer}'s reaper thread, or a
 * {@link MockTimer}'s monitor).
 */
class TaskList extends TimerNode {

    TaskList() {
        prev = this;
        next = this;
    }

    /** A sentinel is never added to a timer, so never due. */
    @Override
    final void runDue() {
        throw new IllegalStateException("a list's sentinel is never due");
    }

    @Override
    final @Nullable TaskHost hostOf() {
        return null;
    }

    final boolean isEmpty() {
        return next == this;
    }

    final void add(TimerNode node) {
        TimerNode last = prev;
        assert last != null; // a sentinel's links are never null: it is its own neighbour when empty
        node.prev = last;
        node.next = this;
        last.next = node;
        prev = node;
    }

    /**
     * Unlinks a node from whatever list it is in.
     *
     * @return the list the node was in if this left it empty, else null
     */
    static @Nullable TaskList unlink(TimerNode node) {
        TimerNode p = node.prev;
        TimerNode n = node.next;
        assert p != null && n != null : "not in a list: " + node;
        p.next = n;
        n.prev = p;
        node.prev = null;
        node.next = null;
        return p == n ? (TaskList) p : null; // only a sentinel is its own neighbour: left alone, it is empty
    }

    /**
     * Empties the list in O(1), with no store into its nodes: returns its first node, or this sentinel
     * if it was empty. The nodes stay chained through {@code next}, the last one's pointing at this
     * sentinel; the caller walks them and clears each node's links before it links or drops it.
     */
    final TimerNode detachAll() {
        TimerNode first = next;
        assert first != null; // a sentinel's links are never null
        next = this;
        prev = this;
        return first;
    }

    /** Removes and returns the first node, or null if the list is empty. */
    final @Nullable TimerNode poll() {
        TimerNode first = next;
        if (first == this) {
            return null;
        }
        assert first != null; // a sentinel's links are never null
        unlink(first);
        return first;
    }
}
