package io.purgatory.timer;

import org.jspecify.annotations.Nullable;
import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.Secrets;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a timer links into its wheel: the node of one pending expiry, its own list entry, so that
 * scheduling allocates nothing. Applications extend {@link TimerTask}, its public face
 * ({@code Timer.add}, {@code cancel()}, {@code run()}); this class has nothing an application can
 * call or override. The purgatory's operations are their own timer nodes too: their class extends
 * this one from {@code io.purgatory}, and the timer reaches them through an owner registered in the
 * internal package ({@code io.purgatory.internal}, not for applications), never by a method of
 * theirs that a subclass could see.
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
 * foreign node's owner knows it (an operation through its purgatory).
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
        Secrets.registerNodeControl(new ForeignNodeControl());
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
     * For {@link TimerTask}, this package's sentinels, and the purgatory's operation state, whose
     * nodes the timer reaches through the {@link NodeOwner} it registers; a node of any other class
     * cannot be added to a timer.
     */
    protected TimerNode() {
    }

    /**
     * What the timer calls when the node is due and was not cancelled, on its expiry thread (a
     * {@link SystemTimer}'s executor or reaper, the caller of {@link MockTimer#advance}): a
     * {@link TimerTask} runs; a foreign node is run by its owner.
     */
    void runDue() {
        foreignOwner().runDue(this);
    }

    /** The timer this node was added to, as its host, or null before it was added. */
    @Nullable TaskHost hostOf() {
        return foreignOwner().timerOf(this) instanceof TaskHost host ? host : null;
    }

    private static NodeOwner<TimerNode, Timer> foreignOwner() {
        NodeOwner<TimerNode, Timer> owner = Secrets.nodeOwner();
        if (owner == null) {
            throw new IllegalStateException("a foreign timer node, and no owner of such nodes is registered");
        }
        return owner;
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
}
