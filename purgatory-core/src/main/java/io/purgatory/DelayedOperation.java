package io.purgatory;

import io.purgatory.internal.OperationState;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An operation that completes when its condition holds or when its delay expires, exactly once.
 *
 * <p>Subclasses implement {@link #tryComplete()} (check the condition; if it holds, call
 * {@link #forceComplete()} and return its result), {@link #onComplete()} (send the response; read
 * {@link #completion()} to know why it runs) and {@link #onExpiration()} (count the timeout, say).
 * Hand the operation to {@link DelayedOperationPurgatory#tryCompleteElseWatch}; an operation can be
 * offered once.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the operation's lock and sets {@link #completion()} from null to how it
 * completed, once: whichever of {@code forceComplete()} (from {@code tryComplete}, or from your
 * code), {@link #cancel(Object)}, the purgatory's {@code cancelForKey} and the timer's expiry gets
 * there first wins; the losers do nothing. The winner cancels the expiry, then runs
 * {@code onComplete()} once. On expiry {@code onExpiration()} runs after {@code onComplete()}, with
 * the lock released. Because {@code tryComplete} and {@code onComplete} both run under the lock,
 * they never run at the same time for one operation (KAFKA-19312). {@link #tryComplete()} states
 * the two guarantees this gives a hand-off, and which purgatory calls a callback may make.
 *
 * <p>An operation is one object: its lock, its completion, its first watch-list entry and its
 * expiry's timer node are fields of the operation itself, inherited from
 * {@code io.purgatory.internal.OperationState}, a class of the internal package (not for
 * applications) that has no public or protected member: a subclass can neither call nor override
 * anything of it. There is no public or protected way to expire an operation early or to remove it
 * from the timer without completing it: it is not a {@code TimerTask} nor a {@code Runnable}, and
 * only the purgatory's package holds the control of its timer node.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock is built in (a field of the operation, rather than a
 * {@code ReentrantLock} beside it); it is held while {@code tryComplete} and {@code onComplete} run,
 * and guards how the operation completed. {@code delay} is final.
 */
public abstract class DelayedOperation extends OperationState {

    /** {@link #delayMs} when the delay is {@code Long.MAX_VALUE}: never. */
    private static final int NEVER = -1;
    /** Bit 31 of {@code delay} set: the delay is in whole seconds (the low 31 bits), rounded up. */
    private static final int IN_SECONDS = Integer.MIN_VALUE;

    /**
     * The delay, in 4 bytes rather than 8 so that a parked operation stays within 64 bytes of
     * machinery: milliseconds up to {@code Integer.MAX_VALUE} (24.8 days) exactly; longer ones in
     * seconds, rounded up (to 68 years); {@link #NEVER} for {@code Long.MAX_VALUE} and anything
     * longer than 68 years.
     */
    private final int delay;

    /**
     * @param delayMs how long the operation may wait before it expires, in milliseconds; not negative
     * @throws IllegalArgumentException if delayMs is negative
     */
    protected DelayedOperation(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
        this.delay = encode(delayMs);
    }

    /**
     * {@link #DelayedOperation(long)} with the delay as a {@link Duration}: whole milliseconds (a
     * fraction of one is dropped); a delay longer than {@code Long.MAX_VALUE} ms never expires.
     *
     * @param delay how long the operation may wait before it expires; not negative
     * @throws IllegalArgumentException if delay is negative
     * @throws NullPointerException if delay is null
     */
    protected DelayedOperation(Duration delay) {
        this(delayMs(delay, "delay"));
    }

    /**
     * A {@link Duration} of delay or timeout in whole milliseconds, {@code Long.MAX_VALUE} if longer.
     *
     * @throws IllegalArgumentException if it is negative, naming {@code what}
     */
    static long delayMs(Duration delay, String what) {
        if (Objects.requireNonNull(delay, what).isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative: " + delay);
        }
        try {
            return delay.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    private static int encode(long delayMs) {
        if (delayMs <= Integer.MAX_VALUE) {
            return (int) delayMs;
        }
        long seconds = -Math.floorDiv(-delayMs, 1000L);
        return seconds < Integer.MAX_VALUE ? IN_SECONDS | (int) seconds : NEVER;
    }

    /**
     * Checks whether the operation can complete now; if so, calls {@link #forceComplete()} and
     * returns its result. Called under the operation's lock, on the thread of the purgatory call that
     * tries it (the offer, a {@code checkAndComplete}, an {@code advance}), never on two threads at
     * once nor beside {@link #onComplete()}: it needs no locking of its own for the operation's
     * state. An exception it throws counts as {@code false} (the operation keeps waiting) and reaches
     * the caller of the purgatory method that tried it (see {@link DelayedOperationPurgatory}).
     *
     * <h4>Two guarantees, for a hand-off</h4>
     * A {@code tryComplete} that takes something for its answer (an item from a queue, a permit) can
     * rely on these, and lose nothing:
     * <ol>
     *   <li><b>No try after completion.</b> Once the operation has completed, on any path,
     *       {@code tryComplete} is never called again; so it is never called on a completed
     *       operation.</li>
     *   <li><b>{@code forceComplete} under the lock wins.</b> A {@code forceComplete()} called from
     *       inside {@code tryComplete} (under the operation's lock) returns {@code true}: the
     *       operation completes by that call, as {@link Completion#COMPLETED}, and not by a racing
     *       expiry, {@code cancel} or {@code close}, which take the same lock and then find it
     *       completed. (Unless this same {@code tryComplete} completed it already, see below.)</li>
     * </ol>
     * So: {@code item = queue.poll(); if (item == null) return false; this.item = item; return
     * forceComplete();} hands every item taken to exactly one answer.
     *
     * <h4>What it may call</h4>
     * <ul>
     *   <li>{@code forceComplete()} on itself: the normal way to complete. A second call returns
     *       {@code false}.</li>
     *   <li>{@code checkAndComplete} and {@code advance} on any key, of its own purgatory or
     *       another: they try the other operations as usual. This operation, which this thread is
     *       trying already, is skipped by them (not tried again, which would recurse); the running
     *       {@code tryComplete} decides with what it sees after the nested call returns. An
     *       {@code advance} that reaches this operation's position watch takes it out of the
     *       position index all the same, as it does for every operation it tries: from then on
     *       {@code checkAndComplete} of that key tries it, and later advances do not.</li>
     *   <li>Offering other operations ({@code tryCompleteElseWatch...}), and {@code forceComplete}
     *       or {@code cancel} of other operations: these take the other operation's lock, waiting
     *       for it, and run its {@code onComplete} on this thread. Two operations must not complete
     *       each other from their {@code tryComplete} on two threads at once: like any two locks
     *       taken in opposite orders, that deadlocks.</li>
     *   <li>{@code cancelForKey} of one of its own keys cancels this operation too, on this thread:
     *       its {@code onComplete} runs inside this {@code tryComplete}, and a later
     *       {@code forceComplete} returns {@code false}. {@code close()} of its purgatory likewise
     *       closes it, and its {@code onExpiration} then runs inside this {@code tryComplete},
     *       under the lock.</li>
     * </ul>
     * It must not offer this operation again (that throws {@link IllegalStateException} at once),
     * block or wait for other threads (it holds the lock, and the walk that called it waits for it:
     * {@link Waiters#await} in particular), nor wait on locks that a caller of
     * {@code checkAndComplete} may hold (KAFKA-8334).
     *
     * @return true if this call completed the operation (the result of {@code forceComplete()})
     */
    public abstract boolean tryComplete();

    /**
     * Runs exactly once, on whichever path completed the operation, under the operation's lock;
     * {@link #completion()} says which path (and {@link #cancelReason()} why, for a cancellation).
     * It runs on the thread that completed the operation: the caller of a purgatory method, the
     * timer's expiry thread, the closer. It may call what {@link #tryComplete()} may call; calls on
     * its own keys leave this operation alone (it has completed), and {@code forceComplete} or
     * {@code cancel} of itself return {@code false}. It must not block: the thread that runs it may
     * be walking a key for other operations, or expiring others. An exception it throws reaches the
     * caller of the method that completed it; the operation stays completed.
     */
    public abstract void onComplete();

    /**
     * Runs after {@link #onComplete()} when the operation completed by expiring
     * ({@link Completion#EXPIRED}, on the timer's expiry thread, or {@link Completion#CLOSED}, on the
     * thread closing the purgatory), with the lock released. It may call any purgatory method,
     * including offering a new operation on the same keys (a retry); like {@code onComplete}, it
     * should not block, as other expiries wait for the thread it runs on.
     */
    public abstract void onExpiration();

    /**
     * The delay given at construction, in milliseconds: exactly, up to {@code Integer.MAX_VALUE}
     * (24.8 days); a longer one rounded up to a whole second, and one longer than 68 years is
     * {@code Long.MAX_VALUE} (never). Rounding up, the operation never expires early.
     *
     * @return the delay in milliseconds; {@code Long.MAX_VALUE} for never
     */
    public final long delayMs() {
        if (delay >= 0) {
            return delay;
        }
        return delay == NEVER ? Long.MAX_VALUE : (delay & Integer.MAX_VALUE) * 1000L;
    }

    /**
     * Completes the operation now, as {@link Completion#COMPLETED}, if it has not completed yet:
     * cancels its expiry and calls {@link #onComplete()}.
     *
     * @return true if this call completed it
     */
    public final boolean forceComplete() {
        return Operations.complete(this, Completion.COMPLETED, null);
    }

    /**
     * Completes the operation now, as {@link Completion#CANCELLED} with no reason, if it has not
     * completed yet. For an operation, cancelling is completing (its expiry is cancelled and
     * {@link #onComplete()} runs, once), so that no caller can leave a waiting client without an
     * answer.
     *
     * @return true if this call completed the operation
     */
    public final boolean cancel() {
        return Operations.complete(this, Completion.CANCELLED, null);
    }

    /**
     * Completes the operation now, as {@link Completion#CANCELLED}, if it has not completed yet;
     * {@code onComplete} reads {@code reason} with {@link #cancelReason()} (an error code to answer
     * with, say).
     *
     * @param reason why, for {@code onComplete}; may be null
     * @return true if this call completed the operation
     */
    public final boolean cancel(@Nullable Object reason) {
        return Operations.complete(this, Completion.CANCELLED, reason);
    }

    /**
     * True once the operation has completed, on any path (see {@link #completion()}).
     *
     * @return whether the operation has completed
     */
    public final boolean isCompleted() {
        return Operations.isDone(this);
    }

    /**
     * True if the operation completed by a cancellation: {@code completion() == CANCELLED}.
     *
     * @return whether the operation completed by a cancellation
     */
    public final boolean isCancelled() {
        return Operations.completedAs(this) == Completion.CANCELLED;
    }

    /**
     * How the operation completed, or null while it has not. Set before {@link #onComplete()} runs,
     * so {@code onComplete} can read it; never changes afterwards.
     *
     * @return how the operation completed, or null while it has not
     */
    public final @Nullable Completion completion() {
        return Operations.completedAs(this);
    }

    /**
     * The reason given to the cancellation that completed the operation
     * ({@link #cancel(Object)} or {@link DelayedOperationPurgatory#cancelForKey(Object, Object)}); null
     * if none was given or the operation did not complete by a cancellation. Readable in
     * {@code onComplete}.
     *
     * @return the reason of the cancellation that completed the operation, or null
     */
    public final @Nullable Object cancelReason() {
        return Operations.reasonGiven(this);
    }
}
