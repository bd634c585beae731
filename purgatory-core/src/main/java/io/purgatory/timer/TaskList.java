package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
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
        TimerNodes.prev(this, this);
        TimerNodes.next(this, this);
    }

    final boolean isEmpty() {
        return TimerNodes.next(this) == this;
    }

    final void add(TimerNode node) {
        TimerNode last = TimerNodes.prev(this);
        assert last != null; // a sentinel's links are never null: it is its own neighbour when empty
        TimerNodes.prev(node, last);
        TimerNodes.next(node, this);
        TimerNodes.next(last, node);
        TimerNodes.prev(this, node);
    }

    /**
     * Unlinks a node from whatever list it is in.
     *
     * @return the list the node was in if this left it empty, else null
     */
    static @Nullable TaskList unlink(TimerNode node) {
        TimerNode p = TimerNodes.prev(node);
        TimerNode n = TimerNodes.next(node);
        assert p != null && n != null : "not in a list: " + node;
        TimerNodes.next(p, n);
        TimerNodes.prev(n, p);
        TimerNodes.prev(node, null);
        TimerNodes.next(node, null);
        return p == n ? (TaskList) p : null; // only a sentinel is its own neighbour: left alone, it is empty
    }

    /**
     * Empties the list in O(1), with no store into its nodes: returns its first node, or this sentinel
     * if it was empty. The nodes stay chained through {@code next}, the last one's pointing at this
     * sentinel; the caller walks them and clears each node's links before it links or drops it.
     */
    final TimerNode detachAll() {
        TimerNode first = TimerNodes.next(this);
        assert first != null; // a sentinel's links are never null
        TimerNodes.next(this, this);
        TimerNodes.prev(this, this);
        return first;
    }

    /** Removes and returns the first node, or null if the list is empty. */
    final @Nullable TimerNode poll() {
        TimerNode first = TimerNodes.next(this);
        if (first == this) {
            return null;
        }
        assert first != null; // a sentinel's links are never null
        unlink(first);
        return first;
    }
}
