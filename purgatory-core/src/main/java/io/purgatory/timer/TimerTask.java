package io.purgatory.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task that runs once when its delay has passed, unless it is cancelled first.
 *
 * <p>A task is its own list node: the timer links it into its buckets through fields of the task
 * itself, so scheduling allocates nothing per task. A task can therefore be added to one timer,
 * once.
 *
 * <h2>Life cycle</h2>
 * <pre>
 *   NEW --add--> QUEUED --(timer takes it)--> SCHEDULED --(deadline)--> EXPIRED (run() is called)
 *    |             |                              |
 *    +-------------+------------cancel()----------+--> CANCELLED
 * </pre>
 * Every transition is a compare-and-set on {@code state}, so exactly one of "run" and "cancel" wins.
 * A task cancelled before it is added is never scheduled: {@link Timer#add} ignores it.
 *
 * <p>A recurring task (the timer's own, behind {@link Timer#scheduleAtFixedRate} and its siblings)
 * goes from SCHEDULED to FIRING instead of EXPIRED: it runs, then either goes back to QUEUED with
 * its next deadline (a {@link MockTimer}, which links it under its monitor, moves it straight to
 * SCHEDULED), or to EXPIRED when its schedule ends. {@code cancel()} still wins from FIRING, and
 * then the move back fails: a recurring task stops whether it is cancelled before, during or after
 * a run.
 *
 * <h2>Thread-safety</h2>
 * {@link #cancel()} and {@link #isCancelled()} may be called from any thread. The link fields
 * ({@code prev}, {@code next}, {@code list}, {@code dueTick}) belong to the timer the task was added
 * to and are touched only under that timer's own discipline (the reaper thread of a
 * {@link SystemTimer}, the monitor of a {@link MockTimer}); {@code handoffNext} is written by the
 * thread that pushes the task onto a hand-off stack before the publishing compare-and-set.
 */
public abstract class TimerTask implements Runnable {

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
            STATE = lookup.findVarHandle(TimerTask.class, "state", int.class);
            HOST = lookup.findVarHandle(TimerTask.class, "host", TaskHost.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long delayMs;
    private volatile int state;
    /** The timer this task was added to; set once, by compare-and-set, before the task leaves NEW. */
    private volatile TaskHost host;

    /** Deadline in the host timer's own time unit (ticks for SystemTimer, ms for MockTimer). */
    long dueTick;
    TimerTask prev;
    TimerTask next;
    TaskList list;
    /** Link in a lock-free hand-off stack: adds, then at most once cancellations or expiries. */
    TimerTask handoffNext;

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

    /** The delay given at construction, in milliseconds. */
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

    /** True once {@link #cancel()} has succeeded. */
    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    /**
     * Claims the task for {@code newHost} and moves it from NEW to QUEUED.
     *
     * @return false if the task was cancelled before it was added (it must then be ignored)
     * @throws IllegalStateException if the task was already added to a timer
     */
    final boolean claim(TaskHost newHost) {
        if (!HOST.compareAndSet(this, null, newHost)) {
            if (state == CANCELLED) {
                return false;
            }
            throw new IllegalStateException("task already added to a timer: " + this);
        }
        if (STATE.compareAndSet(this, NEW, QUEUED)) {
            return true;
        }
        return false; // cancelled while NEW
    }

    final boolean transition(int from, int to) {
        return STATE.compareAndSet(this, from, to);
    }

    /**
     * Takes a due task for running: SCHEDULED to EXPIRED, or to FIRING if it {@linkplain #recurs() recurs}.
     *
     * @return false if the task was cancelled first (it must then not run)
     */
    final boolean fire() {
        return STATE.compareAndSet(this, SCHEDULED, recurs() ? FIRING : EXPIRED);
    }

    /** Whether the timer puts this task back after it runs; only the timer's own recurring tasks do. */
    boolean recurs() {
        return false;
    }

    /** The task's state: NEW, QUEUED, SCHEDULED, EXPIRED, CANCELLED or FIRING. */
    final int state() {
        return state;
    }

    /** The timer this task was added to, or null before it was added. */
    final TaskHost host() {
        return host;
    }
}
