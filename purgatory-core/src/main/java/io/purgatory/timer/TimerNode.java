package io.purgatory.timer;

import org.jspecify.annotations.Nullable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a timer links into its wheel: the node of one pending expiry, its own list entry, so that
 * scheduling allocates nothing. Two kinds of class extend it. {@link TimerTask}, in this package, is
 * the public face: {@code Timer.add}, {@code cancel()}, {@code run()}. Any other class extends it
 * <em>directly</em>, from another package, to make its objects their own timer nodes without
 * exposing a way to run or cancel them early: it gets a {@link Control} for its objects, which only
 * that class can obtain, and which alone adds, cancels and runs them. (The purgatory's operation
 * state does so: an operation is its own expiry, and nothing public can run or cancel it.)
 *
 * <h2>Life cycle</h2>
 * <pre>
 *   NEW --add--> QUEUED --(timer takes it)--> SCHEDULED --(deadline)--> EXPIRED (it runs)
 *    |             |                              |
 *    +-------------+------------cancel------------+--> CANCELLED
 * </pre>
 * Every transition is a compare-and-set on {@code state}, so exactly one of "run" and "cancel" wins.
 * A node cancelled before it is added is never scheduled: adding it does nothing. A {@link TimerTask}
 * is queued by one compare-and-set on its {@code host} instead, and stays NEW until its timer takes
 * it: a NEW task with a host is queued ({@link #claimedWhileNew()}).
 *
 * <p>A recurring task (the timer's own, behind {@link Timer#scheduleAtFixedRate} and its siblings)
 * goes from SCHEDULED to FIRING instead of EXPIRED: it runs, then either goes back to QUEUED with
 * its next deadline (a {@link MockTimer}, which links it under its monitor, moves it straight to
 * SCHEDULED), or to EXPIRED when its schedule ends. A cancel still wins from FIRING, and then the
 * move back fails: a recurring task stops whether it is cancelled before, during or after a run.
 *
 * <h2>Thread-safety</h2>
 * Cancelling may happen from any thread. The link fields ({@code prev}, {@code next},
 * {@code dueTick}) belong to the timer the node was added to and are touched only under that
 * timer's own discipline (the reaper thread of a {@link SystemTimer}, the monitor of a
 * {@link MockTimer}); {@code handoffNext} is written by the thread that pushes the node onto a
 * hand-off stack before the publishing compare-and-set. {@code state} is volatile, changed by
 * compare-and-set only. The node keeps no reference to its timer: a {@link TimerTask} does, and a
 * class with a {@link Control} knows it (an operation through its purgatory).
 */
public abstract class TimerNode {

    static final int NEW = 0;
    static final int QUEUED = 1;
    static final int SCHEDULED = 2;
    static final int EXPIRED = 3;
    static final int CANCELLED = 4;
    /** A recurring task taken from the timer to run; it goes back to QUEUED (or SCHEDULED), or to EXPIRED when its schedule ends. */
    static final int FIRING = 5;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerNode.class, "state", byte.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One of NEW to FIRING: a byte, so that an operation, which is a node, stays small. */
    private volatile byte state;

    /** Deadline in the host timer's own time unit (ticks for SystemTimer, ms for MockTimer). */
    long dueTick;
    /**
     * Links in the circular list of the node's bucket, whose sentinel is a {@link TaskList}; both
     * null while the node is in no list (so a node needs no reference to its list: unlinking it
     * joins its neighbours, and a bucket that ends up alone is empty).
     */
    @Nullable TimerNode prev;
    @Nullable TimerNode next;
    /** Link in a lock-free hand-off stack: adds, then at most once cancellations or expiries. */
    @Nullable TimerNode handoffNext;

    /**
     * For {@link TimerTask}, and for a class that extends this one directly and takes its
     * {@link Control}; a node of any other class cannot be added to a timer.
     */
    protected TimerNode() {
    }

    /**
     * What the timer calls when the node is due and was not cancelled, on its expiry thread (a
     * {@link SystemTimer}'s executor or reaper, the caller of {@link MockTimer#advance}): a
     * {@link TimerTask} runs. {@code due} proves the call comes from a timer: only this package
     * can make one, so a subclass cannot make its own node, or another, fall due early (and a
     * node should check, with its {@link Control#isExpired}, that it has in fact expired).
     *
     * @param due the timer's proof; null from anyone else
     */
    protected abstract void onDue(@Nullable Due due);

    /**
     * The timer this node was added to (the node keeps no reference to it: a {@link TimerTask}
     * does, an operation knows its purgatory's), or null before it was added.
     *
     * @param due the timer's proof; null from anyone else
     * @return the timer, or null
     */
    protected abstract @Nullable Timer timer(@Nullable Due due);

    /** What the timer calls when the node is due. */
    void runDue() {
        onDue(Due.TOKEN);
    }

    /** The timer this node was added to, as its host, or null. */
    @Nullable TaskHost hostOf() {
        return timer(Due.TOKEN) instanceof TaskHost host ? host : null;
    }

    /**
     * Cancels the node: removes it from its timer so that it never runs; a node not yet added is
     * marked so that adding it later does nothing. O(1).
     *
     * @return true if this call cancelled it; false if it had already run, started to run, or been cancelled
     */
    final boolean cancelNode() {
        while (true) {
            int s = state;
            if (s == EXPIRED || s == CANCELLED) {
                return false;
            }
            if (STATE.compareAndSet(this, (byte) s, (byte) CANCELLED)) {
                if (s != NEW) {
                    TaskHost host = hostOf();
                    assert host != null; // a node leaves NEW only once added to a host
                    host.cancelled(this, s);
                } else if (claimedWhileNew()) {
                    TaskHost host = hostOf();
                    assert host != null; // claimed: added to a host
                    host.cancelled(this, QUEUED); // a TimerTask its timer has claimed: queued
                }
                return true;
            }
        }
    }

    /**
     * Moves the node from NEW to QUEUED, for a timer to take.
     *
     * @return false if the node was cancelled before it was added (it must then be ignored)
     * @throws IllegalStateException if the node was already added to a timer
     */
    final boolean queue() {
        if (STATE.compareAndSet(this, (byte) NEW, (byte) QUEUED)) {
            return true;
        }
        if (state == CANCELLED) {
            return false;
        }
        throw new IllegalStateException("task already added to a timer: " + this);
    }

    /**
     * Whether this NEW node was claimed by a timer, so is queued: only a {@link TimerTask} is (its
     * {@code claim} is one compare-and-set on its host, and the state stays NEW until the timer
     * takes it); a node of a {@link Control} is queued by {@link #queue()}.
     */
    boolean claimedWhileNew() {
        return false;
    }

    /**
     * Moves a queued node (QUEUED, or NEW and {@linkplain #claimedWhileNew() claimed}) to {@code to}:
     * its timer takes it, or drops it. Called only by the timer the node was handed to.
     *
     * @return false if the node was cancelled first
     */
    final boolean leaveQueue(int to) {
        int s = state;
        return (s == QUEUED || s == NEW) && STATE.compareAndSet(this, (byte) s, (byte) to);
    }

    final boolean transition(int from, int to) {
        return STATE.compareAndSet(this, (byte) from, (byte) to);
    }

    /**
     * Takes a due node for running: SCHEDULED to EXPIRED, or to FIRING if it {@linkplain #recurs() recurs}.
     *
     * @return false if the node was cancelled first (it must then not run)
     */
    final boolean fire() {
        return STATE.compareAndSet(this, (byte) SCHEDULED, (byte) (recurs() ? FIRING : EXPIRED));
    }

    /** Whether the timer puts this node back after it runs; only the timer's own recurring tasks do. */
    boolean recurs() {
        return false;
    }

    /** The node's state: NEW, QUEUED, SCHEDULED, EXPIRED, CANCELLED or FIRING. */
    final int state() {
        return state;
    }

    /** Whether the node is linked into a bucket. */
    final boolean isLinked() {
        return prev != null;
    }

    /**
     * The timer machinery for the nodes of one class that extends {@link TimerNode} directly from
     * another package: add, cancel, read the deadline. Only that class can obtain it ({@link #of}
     * takes a full-privilege lookup of it), and it refuses nodes of any other class: so a subclass of
     * that class, or anyone else, can neither cancel its nodes nor add them to a timer. (Running them
     * takes a {@link Due}, which only a timer has.)
     *
     * <p>Thread-safe: immutable, and the node operations are those of the node's timer.
     */
    public static final class Control {

        private final Class<?> owner;

        private Control(Class<?> owner) {
            this.owner = owner;
        }

        /**
         * The control of the lookup's class, which must extend {@link TimerNode} directly; call it
         * from that class, with {@code MethodHandles.lookup()}, and keep it private.
         *
         * @param lookup {@code MethodHandles.lookup()} of the class that extends TimerNode
         * @return the control of that class's nodes
         * @throws IllegalArgumentException if the lookup lacks full privilege, or its class does not
         *     extend TimerNode directly
         */
        public static Control of(MethodHandles.Lookup lookup) {
            Class<?> owner = lookup.lookupClass();
            if (!lookup.hasFullPrivilegeAccess() || owner.getSuperclass() != TimerNode.class || owner == TimerTask.class) {
                throw new IllegalArgumentException("a control is for the class that extends TimerNode directly, from its own lookup: " + lookup);
            }
            return new Control(owner);
        }

        /**
         * Adds the node to {@code timer}, to be due {@code delayMs} from now (see {@link Timer#add});
         * a node cancelled before does nothing. The node's {@link TimerNode#timer} must give this
         * timer from now on.
         *
         * @param timer the timer to add it to
         * @param node the node, of this control's class
         * @param delayMs how long from now it is due, in milliseconds; not negative
         * @throws IllegalArgumentException if the node is not of this control's class, or the timer is
         *     not one of this library's ({@link SystemTimer}, {@link MockTimer})
         * @throws IllegalStateException if the node was already added to a timer, or the timer is closed
         */
        public void add(Timer timer, TimerNode node, long delayMs) {
            check(node);
            if (!(timer instanceof TaskHost host)) {
                throw new IllegalArgumentException("not a timer of this library: " + timer);
            }
            if (node.queue()) {
                host.start(node, host.deadlineAfter(delayMs));
            }
        }

        /**
         * Cancels the node (see {@link TimerTask#cancel()}).
         *
         * @return true if this call cancelled it
         * @param node the node, of this control's class
         * @throws IllegalArgumentException if the node is not of this control's class
         */
        public boolean cancel(TimerNode node) {
            check(node);
            return node.cancelNode();
        }

        /**
         * True once the node has expired: its timer took it to run (it then calls {@link TimerNode#onDue}).
         *
         * @param node the node, of this control's class
         * @return whether it expired
         */
        public boolean isExpired(TimerNode node) {
            check(node);
            return node.state == EXPIRED;
        }

        /**
         * True once the node was cancelled.
         *
         * @param node the node, of this control's class
         * @return whether it was cancelled
         */
        public boolean isCancelled(TimerNode node) {
            check(node);
            return node.state == CANCELLED;
        }

        /**
         * The deadline the node is due at, in ms on its timer's clock ({@link Timer#nowMs()}): it runs at
         * or after it. Meaningful once the node was added.
         *
         * @param node the node, of this control's class
         * @return the deadline, in milliseconds on its timer's clock; {@code Long.MAX_VALUE} before it was added
         */
        public long deadlineMs(TimerNode node) {
            check(node);
            TaskHost h = node.state == NEW ? null : node.hostOf();
            return h == null ? Long.MAX_VALUE : h.deadlineMsOfTick(node.dueTick);
        }

        private void check(TimerNode node) {
            if (!owner.isInstance(node)) {
                throw new IllegalArgumentException("not a node of " + owner.getName() + ": " + node);
            }
        }
    }

    /**
     * Proof that a call to {@link #onDue} or {@link #timer} comes from this package's timers: it
     * cannot be made elsewhere, and the timers pass it to the node being run only. Immutable.
     */
    public static final class Due {
        static final Due TOKEN = new Due();

        private Due() {
        }
    }
}
