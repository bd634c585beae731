package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import org.jspecify.annotations.Nullable;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.lang.invoke.VarHandle;

/**
 * A task that runs once when its delay has passed, unless it is cancelled first.
 *
 * <p>A task is its own node in the timer's wheel: the timer links it into its buckets through fields of
 * the task itself (inherited from {@code io.purgatory.internal.TimerNode}, which has nothing a
 * subclass can call or override), so scheduling allocates nothing per task. A task can therefore be added to one
 * timer, once. Its life cycle is the node's (NEW, queued, SCHEDULED, then EXPIRED or CANCELLED);
 * when it expires the timer calls {@link #run()}. Adding it is one compare-and-set, on {@code host}
 * (the timer claims it; its state stays NEW, which with a host means queued, until the timer takes
 * it); a cancel before any add claims {@code host} for {@link #CANCELLED_BEFORE_ADD} first, so that
 * exactly one of the two wins.
 *
 * <h2>Thread-safety</h2>
 * {@link #cancel()} and {@link #isCancelled()} may be called from any thread; the rest is the
 * node's. {@code delayMs} is final; {@code host} is volatile, set once by
 * compare-and-set (to the timer, or to {@link #CANCELLED_BEFORE_ADD}).
 */
public abstract class TimerTask extends TimerNode implements Runnable {

    private static final VarHandle HOST;

    static {
        try {
            HOST = MethodHandles.lookup().findVarHandle(TimerTask.class, "host", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code host} of a task cancelled before it was added: no timer can claim it any more. */
    private static final Object CANCELLED_BEFORE_ADD = new Object();

    private final long delayMs;
    /** The timer this task was added to, or {@link #CANCELLED_BEFORE_ADD}; set once, by compare-and-set. */
    private volatile @Nullable Object host;

    /**
     * @param delayMs how long after {@link Timer#add} the task runs, in milliseconds; not negative
     * @throws IllegalArgumentException if delayMs is negative
     */
    protected TimerTask(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
        this.delayMs = delayMs;
    }

    /**
     * {@link #TimerTask(long)} with the delay as a {@link Duration}, in whole milliseconds
     * (a fraction of one is dropped; longer than {@code Long.MAX_VALUE} ms: never).
     *
     * @param delay how long after {@link Timer#add} the task runs; not negative
     * @throws IllegalArgumentException if delay is negative
     */
    protected TimerTask(Duration delay) {
        this(Delays.toMs(delay, "delay"));
    }

    /**
     * The delay given at construction, in milliseconds.
     *
     * @return the delay, in milliseconds
     */
    public final long delayMs() {
        return delayMs;
    }

    /**
     * Removes the task from its timer so that it never runs; a task not yet added is marked so
     * that adding it later does nothing. O(1).
     *
     * @return true if this call cancelled the task; false if it had already run, started to run,
     *     or been cancelled (a recurring task is cancelled by a call during its run, too: its
     *     later runs never happen)
     */
    public boolean cancel() {
        if (host == null && TimerNodes.state(this) == TimerNodes.NEW) { // never added: claim it, so that no timer can
            if (HOST.compareAndSet(this, null, CANCELLED_BEFORE_ADD)) {
                TimerNodes.transition(this, TimerNodes.NEW, TimerNodes.CANCELLED);
                return true;
            }
        }
        if (host == CANCELLED_BEFORE_ADD) {
            return false; // another cancel claimed it first
        }
        return Nodes.cancel(this); // claimed by a timer: queued, scheduled, firing, or done
    }

    /**
     * True once {@link #cancel()} has succeeded.
     *
     * @return whether the task was cancelled
     */
    public final boolean isCancelled() {
        return TimerNodes.state(this) == TimerNodes.CANCELLED || host == CANCELLED_BEFORE_ADD;
    }

    /**
     * Claims the task for {@code newHost}: it is queued from now on (its state stays NEW until the
     * timer takes it). One compare-and-set.
     *
     * @return false if the task was cancelled before it was added (it must then be ignored)
     * @throws IllegalStateException if the task was already added to a timer
     */
    final boolean claim(TaskHost newHost) {
        if (!HOST.compareAndSet(this, null, newHost)) {
            if (host == CANCELLED_BEFORE_ADD) {
                return false;
            }
            throw new IllegalStateException("task already added to a timer: " + this);
        }
        return true;
    }

    /** Whether this NEW task was claimed by a timer, so is queued (its state stays NEW until the timer takes it). */
    final boolean claimedWhileNew() {
        return host instanceof TaskHost;
    }

    /** The timer this task was added to, or null before it was added. */
    final @Nullable TaskHost host() {
        return host instanceof TaskHost h ? h : null;
    }
}
