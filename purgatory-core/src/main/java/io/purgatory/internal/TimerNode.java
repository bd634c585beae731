package io.purgatory.internal;

import org.jspecify.annotations.Nullable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * <strong>Not for applications.</strong> What a timer links into its wheel: the node of one pending
 * expiry, its own list entry, so that scheduling allocates nothing. It is the top of two public
 * hierarchies, which is why it is public: {@code io.purgatory.timer.TimerTask} (applications extend
 * that, and use its public face: {@code Timer.add}, {@code cancel()}, {@code run()}) and
 * {@link OperationState} (applications extend {@code io.purgatory.DelayedOperation}). It has no
 * public or protected member but its constructor, so a subclass can neither call nor override
 * anything of it: the timer reads and writes a node through {@link TimerNodes}, a class beside it
 * that is in no subclass's hierarchy.
 *
 * <p>This class holds the node's data and its state machine; what a node does (runs when due,
 * names its timer) is decided by the timer package from the node's class, not by a method here.
 *
 * <h2>Life cycle</h2>
 * <pre>
 *   NEW --add--> QUEUED --(timer takes it)--> SCHEDULED --(deadline)--> EXPIRED (it runs)
 *    |             |                              |
 *    +-------------+------------cancel------------+--> CANCELLED
 * </pre>
 * Every transition is a compare-and-set on {@code state}, so exactly one of "run" and "cancel" wins.
 * A node cancelled before it is added is never scheduled: adding it does nothing. A
 * {@code TimerTask} is queued by one compare-and-set on its {@code host} instead, and stays NEW until
 * its timer takes it. A recurring task goes from SCHEDULED to FIRING instead of EXPIRED, and back to
 * QUEUED or SCHEDULED, or to EXPIRED when its schedule ends (see {@link TimerNodes#FIRING}).
 *
 * <h2>Thread-safety</h2>
 * Cancelling may happen from any thread. The link fields ({@code prev}, {@code next},
 * {@code dueTick}) belong to the timer the node was added to and are touched only under that
 * timer's own discipline (the reaper thread of a {@code SystemTimer}, the monitor of a
 * {@code MockTimer}); {@code handoffNext} is written by the thread that pushes the node onto a
 * hand-off stack before the publishing compare-and-set. {@code state} is volatile, changed by
 * compare-and-set only. The node keeps no reference to its timer: a {@code TimerTask} does, and an
 * operation's purgatory knows it.
 */
public abstract class TimerNode {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerNode.class, "state", byte.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One of {@link TimerNodes#NEW} to {@link TimerNodes#FIRING}: a byte, so that an operation, which is a node, stays small. */
    private volatile byte state;

    /** Deadline in the host timer's own time unit (ticks for SystemTimer, ms for MockTimer). */
    long dueTick;
    /**
     * Links in the circular list of the node's bucket, whose sentinel is a node too; both null
     * while the node is in no list (so a node needs no reference to its list: unlinking it joins its
     * neighbours, and a bucket that ends up alone is empty).
     */
    @Nullable TimerNode prev;
    @Nullable TimerNode next;
    /** Link in a lock-free hand-off stack: adds, then at most once cancellations or expiries. */
    @Nullable TimerNode handoffNext;

    /**
     * For the timer's tasks and list sentinels, and for the purgatory's operation state; the timer
     * refuses to add a node of any other class.
     */
    protected TimerNode() {
    }

    /** The node's state: NEW, QUEUED, SCHEDULED, EXPIRED, CANCELLED or FIRING. */
    final int state() {
        return state;
    }

    /** Moves the node from {@code from} to {@code to}; false if it was not in {@code from}. */
    final boolean transition(int from, int to) {
        return STATE.compareAndSet(this, (byte) from, (byte) to);
    }
}
