package org.apache.kafka.server.purgatory;

import io.purgatory.Completion;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's delayed operation (kafka-server-common 4.4.0), whose state is purgatory-core's: the
 * operation holds a core operation ({@code state}) that the module's {@link DelayedOperationPurgatory}
 * parks, watches and expires.
 *
 * <p><b>Kafka's contract, kept.</b> Subclasses implement {@link #tryComplete()} (if the condition holds,
 * call {@link #forceComplete()} and return its result), {@link #onComplete()} and
 * {@link #onExpiration()}. {@code tryComplete} runs with {@link #lock} held when the purgatory calls
 * it. {@link #forceComplete()} completes the operation once, whoever calls it first, and cancels its
 * timer task; {@link #run()} is the expiry ({@code forceComplete}, then {@code onExpiration}) that a
 * foreign {@code Timer} (Kafka's test {@code MockTimer}) calls. The purgatory's
 * {@code cancelForKey} hands operations back without completing them.
 *
 * <p><b>What it improves.</b> Completion goes through purgatory-core's state: exactly once, and the
 * operation's watches become tombstones at once, so a completed operation (and its payload: a produce's
 * records, a fetch's response) is unreachable from the purgatory right away instead of staying in every
 * other key's watch list until the next purge (KAFKA-19763). On the module's own {@code SystemTimer}
 * its expiry is core's: never early (deadlines round up to the tick), and unlinked from the wheel as
 * soon as the operation completes.
 *
 * <p><b>Limit.</b> Until purgatory-core lets a foreign class carry its operation state (issue 24), the
 * state is a second object per operation, and core's own lock is taken before {@link #lock} around
 * {@code tryComplete}: code that holds {@code lock} must not call {@code forceComplete()} while
 * another thread may call the purgatory's {@code checkAndComplete} for the operation (no Kafka 4.4
 * class takes {@code lock} outside {@code tryComplete}).
 *
 * <p>Thread-safe: {@code lock} as in Kafka; the state is core's, thread-safe.
 */
public abstract class DelayedOperation extends TimerTask {

    /** Held while the purgatory runs {@link #tryComplete()}; Kafka's, a {@link ReentrantLock}. */
    protected final ReentrantLock lock = new ReentrantLock();

    /** The operation's core state, which the purgatory parks. */
    final State state;

    public DelayedOperation(long delayMs) {
        super(delayMs);
        this.state = new State(this, Math.max(0, delayMs));
    }

    /**
     * Completes the operation if nothing completed it yet: cancels its timer task and runs
     * {@link #onComplete()}.
     *
     * @return true if this call completed it
     */
    public boolean forceComplete() {
        return state.forceComplete();
    }

    /** True once the operation completed (by its condition, forceComplete or its expiry). */
    public boolean isCompleted() {
        return state.isCompleted() && !state.handedBack;
    }

    /** What to do when the operation expires: runs after {@link #onComplete()}. */
    public abstract void onExpiration();

    /** Completes the operation's work (sends the response, say); runs exactly once. */
    public abstract void onComplete();

    /** Checks the condition; if it holds, calls {@link #forceComplete()} and returns its result. */
    public abstract boolean tryComplete();

    /**
     * Under {@link #lock}: tries to complete; if it cannot, runs {@code action} and tries again.
     *
     * @return whether the operation completed
     */
    boolean safeTryCompleteOrElse(Action action) {
        lock.lock();
        try {
            if (tryComplete()) {
                return true;
            }
            action.apply();
            return tryComplete();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #tryComplete()} under {@link #lock}. */
    boolean safeTryComplete() {
        lock.lock();
        try {
            return tryComplete();
        } finally {
            lock.unlock();
        }
    }

    /** The expiry, run by the timer at the deadline: completes the operation and then calls {@link #onExpiration()}. */
    @Override
    public void run() {
        if (forceComplete()) {
            onExpiration();
        }
    }

    /** Kafka's callback for {@link #safeTryCompleteOrElse}. */
    public interface Action {
        void apply();
    }

    /**
     * The operation's core state: a purgatory-core operation whose callbacks are this Kafka operation's.
     * Completion by the purgatory's shutdown, or by {@code cancelForKey} (which hands operations back
     * uncompleted, as Kafka does), runs no Kafka callback and leaves the Kafka operation not completed.
     */
    static final class State extends io.purgatory.DelayedOperation {
        final DelayedOperation owner;
        /** Set before a completion that Kafka does not count as one (shutdown, cancelForKey) publishes. */
        volatile boolean handedBack;

        State(DelayedOperation owner, long delayMs) {
            super(delayMs);
            this.owner = owner;
        }

        @Override
        public boolean tryComplete() {
            owner.lock.lock();
            try {
                return owner.tryComplete();
            } finally {
                owner.lock.unlock();
            }
        }

        @Override
        public void onComplete() {
            Object reason = cancelReason();
            if (completion() == Completion.CLOSED || reason instanceof HandBack) {
                handedBack = true;
                if (reason instanceof HandBack handBack) {
                    handBack.add(owner);
                }
                return;
            }
            if (!owner.isCancelled()) {
                owner.cancel(); // a foreign timer holds the Kafka task: take it out
            }
            owner.onComplete();
        }

        @Override
        public void onExpiration() {
            if (!handedBack) {
                owner.onExpiration();
            }
        }
    }
}
