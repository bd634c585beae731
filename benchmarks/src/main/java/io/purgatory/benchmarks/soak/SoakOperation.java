package io.purgatory.benchmarks.soak;

import io.purgatory.DelayedOperation;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An operation of the soak: it completes once its key's position reaches its target (never, for
 * {@link #NEVER}), and records how it was answered: how many times {@code onComplete} and
 * {@code onExpiration} ran, and which path won.
 *
 * <p>Thread-safe: the counters and the outcome are atomics, written by whichever thread completes,
 * expires or cancels the operation and read by the checking thread after the round.
 */
final class SoakOperation extends DelayedOperation {

    /** A target no position reaches: the operation can only expire, or be cancelled. */
    static final long NEVER = Long.MAX_VALUE;

    /** How an operation was answered. */
    enum Outcome {
        /** Its condition held: {@code tryComplete} completed it. */
        COMPLETED,
        /** It expired: by its timer, by the closing purgatory, or at once when offered after close. */
        EXPIRED,
        /** {@code cancelForKey} completed it (as {@link io.purgatory.Completion#CANCELLED}). */
        CANCELLED
    }

    private final AtomicLong position;
    private final long target;
    private final AtomicInteger completions = new AtomicInteger();
    private final AtomicInteger expirations = new AtomicInteger();
    private final AtomicInteger outcomes = new AtomicInteger();
    private final AtomicReference<Outcome> outcome = new AtomicReference<>();

    /**
     * @param position the position of the key whose value the operation waits for
     * @param target the position it waits for, or {@link #NEVER}
     */
    SoakOperation(long timeoutMs, AtomicLong position, long target) {
        super(timeoutMs);
        this.position = position;
        this.target = target;
    }

    long target() {
        return target;
    }

    @Override
    public boolean tryComplete() {
        if (position.get() >= target && forceComplete()) {
            answered(Outcome.COMPLETED);
            return true;
        }
        return false;
    }

    @Override
    public void onComplete() {
        completions.incrementAndGet();
        if (isCancelled()) {
            answered(Outcome.CANCELLED);
        }
    }

    @Override
    public void onExpiration() {
        expirations.incrementAndGet();
        answered(Outcome.EXPIRED);
    }

    private void answered(Outcome how) {
        outcomes.incrementAndGet();
        outcome.compareAndSet(null, how);
    }

    /** The path that answered it, or null if none has yet. */
    Outcome outcome() {
        return outcome.get();
    }

    /** Whether it has been answered exactly once: one onComplete, one outcome, onExpiration only if it expired. */
    boolean answeredOnce() {
        Outcome how = outcome.get();
        return how != null && completions.get() == 1 && outcomes.get() == 1
                && expirations.get() == (how == Outcome.EXPIRED ? 1 : 0);
    }

    /** Whether some path ran twice: onComplete, onExpiration or an outcome more than once. */
    boolean answeredTwice() {
        return completions.get() > 1 || expirations.get() > 1 || outcomes.get() > 1;
    }

    String describe() {
        return "target " + (target == NEVER ? "never" : target) + ", onComplete x" + completions.get()
                + ", onExpiration x" + expirations.get() + ", outcomes x" + outcomes.get() + " (" + outcome.get()
                + "), isCompleted " + isCompleted();
    }
}
