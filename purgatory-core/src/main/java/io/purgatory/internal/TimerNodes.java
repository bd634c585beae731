package io.purgatory.internal;

import org.jspecify.annotations.Nullable;

/**
 * <strong>Not for applications.</strong> The timer's hands on a {@link TimerNode}: its state
 * machine and its links, for {@code io.purgatory.timer}, which links nodes into its wheel. Static
 * methods of a class outside the node's hierarchy, so that no subclass of the node (a user's task or
 * operation) inherits, sees or overrides them; each is a field access or one compare-and-set, which
 * the JIT inlines.
 *
 * <p>Thread-safety: that of {@link TimerNode}: {@code state} by compare-and-set from any thread,
 * the links under the discipline of the node's timer.
 */
public final class TimerNodes {

    /** Not added to a timer yet. */
    public static final int NEW = 0;
    /** Added, waiting for its timer to take it into the wheel. */
    public static final int QUEUED = 1;
    /** In the wheel. */
    public static final int SCHEDULED = 2;
    /** Taken to run: it ran, or is running. */
    public static final int EXPIRED = 3;
    /** Cancelled: it never runs (again). */
    public static final int CANCELLED = 4;
    /** A recurring task taken from the timer to run; it goes back to QUEUED (or SCHEDULED), or to EXPIRED when its schedule ends. */
    public static final int FIRING = 5;

    private TimerNodes() {
    }

    /** The node's state: {@link #NEW} to {@link #FIRING}. */
    public static int state(TimerNode node) {
        return node.state();
    }

    /** Moves the node from {@code from} to {@code to} by compare-and-set; false if it was not in {@code from}. */
    public static boolean transition(TimerNode node, int from, int to) {
        return node.transition(from, to);
    }

    /**
     * Moves the node from NEW to QUEUED, for a timer to take.
     *
     * @return false if the node was cancelled before it was added (it must then be ignored)
     * @throws IllegalStateException if the node was already added to a timer
     */
    public static boolean queue(TimerNode node) {
        if (node.transition(NEW, QUEUED)) {
            return true;
        }
        if (node.state() == CANCELLED) {
            return false;
        }
        throw new IllegalStateException("task already added to a timer: " + node);
    }

    /**
     * Moves a queued node (QUEUED, or a NEW task its timer claimed) to {@code to}: its timer takes it,
     * or drops it. Called only by the timer the node was handed to.
     *
     * @return false if the node was cancelled first
     */
    public static boolean leaveQueue(TimerNode node, int to) {
        int s = node.state();
        return (s == QUEUED || s == NEW) && node.transition(s, to);
    }

    /** The node's deadline, in its timer's unit. */
    public static long dueTick(TimerNode node) {
        return node.dueTick;
    }

    /** Sets the node's deadline, in its timer's unit; by its timer. */
    public static void dueTick(TimerNode node, long dueTick) {
        node.dueTick = dueTick;
    }

    /** The node before this one in its list, or null while it is in none. */
    public static @Nullable TimerNode prev(TimerNode node) {
        return node.prev;
    }

    /** Sets the node's link to the one before it. */
    public static void prev(TimerNode node, @Nullable TimerNode prev) {
        node.prev = prev;
    }

    /** The node after this one in its list, or null while it is in none. */
    public static @Nullable TimerNode next(TimerNode node) {
        return node.next;
    }

    /** Sets the node's link to the one after it. */
    public static void next(TimerNode node, @Nullable TimerNode next) {
        node.next = next;
    }

    /** Whether the node is linked into a list. */
    public static boolean isLinked(TimerNode node) {
        return node.prev != null;
    }

    /** The node below this one on a hand-off stack, or null. */
    public static @Nullable TimerNode handoffNext(TimerNode node) {
        return node.handoffNext;
    }

    /** Sets the node's hand-off stack link; before the compare-and-set that publishes the node. */
    public static void handoffNext(TimerNode node, @Nullable TimerNode next) {
        node.handoffNext = next;
    }
}
