package io.purgatory;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.jspecify.annotations.Nullable;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentMap;

/**
 * One key of a {@link HandOff}: the key's built-in queue of items, and its waiters in the order they
 * began to wait (a doubly linked list of {@link Node}s, one per waiter, so that a waiter that leaves
 * early is unlinked in O(1)).
 *
 * <p>Invariant, whenever no thread holds the monitor: if the queue holds an item, no waiter that
 * takes from the built-in queue is linked and still waiting. The hand-off keeps it by appending and
 * serving in one hold of the monitor.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe: every field but {@code key} is guarded by this lane's monitor, and so are the links
 * of its nodes. Lock order: a lane's monitor, then a waiter's operation lock; a thread never holds
 * two lanes' monitors. A lane left with no item and no waiter is retired (unmapped); a thread that
 * finds it retired after taking its monitor looks the key up again.
 *
 * @param <K> the key
 * @param <V> the items
 */
final class HandOffLane<K, V> {

    final K key;
    @GuardedBy("this")
    private @Nullable ArrayDeque<V> items;
    @GuardedBy("this")
    private @Nullable Node head;
    @GuardedBy("this")
    private @Nullable Node tail;
    @GuardedBy("this")
    private int linked;
    @GuardedBy("this")
    private boolean retired;

    HandOffLane(K key) {
        this.key = key;
    }

    /** A waiter's place in one lane. Its links are guarded by the lane's monitor. */
    static final class Node {
        final HandOffWaiter<?, ?> waiter;
        final HandOffLane<?, ?> lane;
        @GuardedBy("lane")
        @Nullable Node prev;
        @GuardedBy("lane")
        @Nullable Node next;
        @GuardedBy("lane")
        boolean linked;

        Node(HandOffWaiter<?, ?> waiter, HandOffLane<?, ?> lane) {
            this.waiter = waiter;
            this.lane = lane;
        }
    }

    @GuardedBy("this")
    boolean isRetired() {
        return retired;
    }

    /** Appends an item at the tail of the queue. */
    @GuardedBy("this")
    void append(V item) {
        ArrayDeque<V> q = items;
        if (q == null) {
            q = new ArrayDeque<>();
            items = q;
        }
        q.addLast(item);
    }

    /** Removes and returns the item at the head of the queue, or null. Re-entrant: a waiter's take calls it under the monitor. */
    synchronized @Nullable V pollItem() {
        ArrayDeque<V> q = items;
        return q == null ? null : q.pollFirst();
    }

    synchronized int queued() {
        ArrayDeque<V> q = items;
        return q == null ? 0 : q.size();
    }

    synchronized int waiting() {
        return linked;
    }

    @GuardedBy("this")
    boolean hasItems() {
        ArrayDeque<V> q = items;
        return q != null && !q.isEmpty();
    }

    /** The oldest waiter's node, or null. */
    @GuardedBy("this")
    @Nullable Node first() {
        return head;
    }

    /** The oldest waiter that has not completed, after unlinking those before it that have; or null. */
    @GuardedBy("this")
    @Nullable Node firstWaiting() {
        Node n;
        while ((n = head) != null && n.waiter.isCompleted()) {
            unlink(n);
        }
        return n;
    }

    /** Links a node at the tail: its waiter is the youngest. */
    @GuardedBy("this")
    @SuppressWarnings("GuardedBy") // node.lane == this: Error Prone cannot see it
    void link(Node node) {
        assert node.lane == this && !node.linked;
        node.prev = tail;
        node.next = null;
        if (tail == null) {
            head = node;
        } else {
            tail.next = node;
        }
        tail = node;
        node.linked = true;
        linked++;
    }

    /** Unlinks a node if it is linked. */
    @GuardedBy("this")
    @SuppressWarnings("GuardedBy") // node.lane == this, and so for its neighbours
    void unlink(Node node) {
        assert node.lane == this;
        if (!node.linked) {
            return;
        }
        Node p = node.prev;
        Node n = node.next;
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
        node.prev = null;
        node.next = null;
        node.linked = false;
        linked--;
    }

    /** Unmaps and retires the lane if it holds no item and no waiter. */
    @GuardedBy("this")
    void retireIfEmpty(ConcurrentMap<K, HandOffLane<K, V>> lanes) {
        if (head == null && !hasItems() && !retired) {
            retired = true;
            lanes.remove(key, this);
        }
    }

    @Override
    public synchronized String toString() {
        return "HandOffLane[" + key + ", queued " + (items == null ? 0 : items.size()) + ", waiting " + linked + "]";
    }
}
