package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

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
 * A node cancelled before it is added is never scheduled: adding it does nothing.
 *
 * <p>A recurring task (the timer's own, behind {@link Timer#scheduleAtFixedRate} and its siblings)
 * goes from SCHEDULED to FIRING instead of EXPIRED: it runs, then either goes back to QUEUED with
 * its next deadline (a {@link MockTimer}, which links it under its monitor, moves it straight to
 * SCHEDULED), or to EXPIRED when its schedule ends. A cancel still wins from FIRING, and then the
 * move back fails: a recurring task stops whether it is cancelled before, during or after a run.
 *
 * <h2>Thread-safety</h2>
 * Cancelling may happen from any thread. The link fields ({@code prev}, {@code next}, {@code list},
 * {@code dueTick}) belong to the timer the node was added to and are touched only under that
 * timer's own discipline (the reaper thread of a {@link SystemTimer}, the monitor of a
 * {@link MockTimer}); {@code handoffNext} is written by the thread that pushes the node onto a
 * hand-off stack before the publishing compare-and-set. {@code state} and {@code host} are
 * volatile, changed by compare-and-set only.
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
    private static final VarHandle HOST;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(TimerNode.class, "state", int.class);
            HOST = lookup.findVarHandle(TimerNode.class, "host", TaskHost.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;
    /** The timer this node was added to; set once, by compare-and-set, before the node leaves NEW. */
    private volatile TaskHost host;

    /** Deadline in the host timer's own time unit (ticks for SystemTimer, ms for MockTimer). */
    long dueTick;
    TimerNode prev;
    TimerNode next;
    TaskList list;
    /** Link in a lock-free hand-off stack: adds, then at most once cancellations or expiries. */
    TimerNode handoffNext;

    /**
     * For {@link TimerTask}, and for a class that extends this one directly and takes its
     * {@link Control}; a node of any other class cannot be added to a timer.
     */
    protected TimerNode() {
    }

    /**
     * What the timer calls when the node is due and was not cancelled, on its expiry thread (a
     * {@link SystemTimer}'s executor, the caller of {@link MockTimer#advance}). A {@link TimerTask}
     * runs; any other node is handed to its class's {@link Control}.
     */
    void runDue() {
        Control.ofNode(this).onDue.accept(this);
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
            if (STATE.compareAndSet(this, s, CANCELLED)) {
                if (s != NEW) {
                    host.cancelled(this, s);
                }
                return true;
            }
        }
    }

    /**
     * Claims the node for {@code newHost} and moves it from NEW to QUEUED.
     *
     * @return false if the node was cancelled before it was added (it must then be ignored)
     * @throws IllegalStateException if the node was already added to a timer
     */
    final boolean claim(TaskHost newHost) {
        if (!HOST.compareAndSet(this, null, newHost)) {
            if (state == CANCELLED) {
                return false;
            }
            throw new IllegalStateException("task already added to a timer: " + this);
        }
        return STATE.compareAndSet(this, NEW, QUEUED); // false: cancelled while NEW
    }

    final boolean transition(int from, int to) {
        return STATE.compareAndSet(this, from, to);
    }

    /**
     * Takes a due node for running: SCHEDULED to EXPIRED, or to FIRING if it {@linkplain #recurs() recurs}.
     *
     * @return false if the node was cancelled first (it must then not run)
     */
    final boolean fire() {
        return STATE.compareAndSet(this, SCHEDULED, recurs() ? FIRING : EXPIRED);
    }

    /** Whether the timer puts this node back after it runs; only the timer's own recurring tasks do. */
    boolean recurs() {
        return false;
    }

    /** The node's state: NEW, QUEUED, SCHEDULED, EXPIRED, CANCELLED or FIRING. */
    final int state() {
        return state;
    }

    /** The timer this node was added to, or null before it was added. */
    final TaskHost host() {
        return host;
    }

    /**
     * The timer machinery for the nodes of one class that extends {@link TimerNode} directly from
     * another package: add, cancel, read the deadline, and what to do when a node is due. Only that
     * class can obtain it ({@link #of} takes a full-privilege lookup of it), and it refuses nodes of
     * any other class: so a subclass of that class, or anyone else, can neither run nor cancel its
     * nodes, nor add them to a timer. One per class.
     *
     * <p>Thread-safe: immutable, and the node operations are those of the node's timer.
     */
    public static final class Control {

        private static final ConcurrentHashMap<Class<?>, Control> REGISTERED = new ConcurrentHashMap<>();
        /** The control of each concrete node class, found through its superclass that extends TimerNode directly. */
        private static final ClassValue<Control> BY_CLASS = new ClassValue<>() {
            @Override
            protected Control computeValue(Class<?> type) {
                Class<?> c = type;
                while (c.getSuperclass() != TimerNode.class) {
                    c = c.getSuperclass();
                }
                return REGISTERED.get(c);
            }
        };

        private final Class<?> owner;
        private final Consumer<TimerNode> onDue;

        private Control(Class<?> owner, Consumer<TimerNode> onDue) {
            this.owner = owner;
            this.onDue = onDue;
        }

        /**
         * The control of the lookup's class, which must extend {@link TimerNode} directly; call it
         * once, from that class, with {@code MethodHandles.lookup()}.
         *
         * @param onDue what the timer does with a node of the class when it is due (on its expiry
         *     thread); it must not throw, or the timer logs what it throws
         * @throws IllegalArgumentException if the lookup lacks full privilege, or its class does not
         *     extend TimerNode directly
         * @throws IllegalStateException if the class already took its control
         */
        public static Control of(MethodHandles.Lookup lookup, Consumer<TimerNode> onDue) {
            Class<?> owner = lookup.lookupClass();
            if (!lookup.hasFullPrivilegeAccess() || owner.getSuperclass() != TimerNode.class || owner == TimerTask.class) {
                throw new IllegalArgumentException("a control is for the class that extends TimerNode directly, from its own lookup: " + lookup);
            }
            Control control = new Control(owner, Objects.requireNonNull(onDue, "onDue"));
            if (REGISTERED.putIfAbsent(owner, control) != null) {
                throw new IllegalStateException("the control of " + owner.getName() + " was already taken");
            }
            return control;
        }

        static Control ofNode(TimerNode node) {
            return BY_CLASS.get(node.getClass());
        }

        /**
         * Adds the node to {@code timer}, to be due {@code delayMs} from now (see {@link Timer#add});
         * a node cancelled before does nothing.
         *
         * @throws IllegalArgumentException if the node is not of this control's class, or the timer is
         *     not one of this library's ({@link SystemTimer}, {@link MockTimer})
         * @throws IllegalStateException if the node was already added to a timer, or the timer is closed
         */
        public void add(Timer timer, TimerNode node, long delayMs) {
            check(node);
            if (!(timer instanceof TaskHost host)) {
                throw new IllegalArgumentException("not a timer of this library: " + timer);
            }
            if (node.claim(host)) {
                host.start(node, host.deadlineAfter(delayMs));
            }
        }

        /**
         * Cancels the node (see {@link TimerTask#cancel()}).
         *
         * @return true if this call cancelled it
         * @throws IllegalArgumentException if the node is not of this control's class
         */
        public boolean cancel(TimerNode node) {
            check(node);
            return node.cancelNode();
        }

        /** True once the node was cancelled. */
        public boolean isCancelled(TimerNode node) {
            check(node);
            return node.state == CANCELLED;
        }

        /**
         * The deadline the node is due at, in ms on its timer's clock ({@link Timer#nowMs()}): it runs at
         * or after it. Meaningful once the node was added.
         */
        public long deadlineMs(TimerNode node) {
            check(node);
            TaskHost h = node.host;
            return h == null ? Long.MAX_VALUE : h.deadlineMsOfTick(node.dueTick);
        }

        private void check(TimerNode node) {
            if (!owner.isInstance(node)) {
                throw new IllegalArgumentException("not a node of " + owner.getName() + ": " + node);
            }
        }
    }
}
