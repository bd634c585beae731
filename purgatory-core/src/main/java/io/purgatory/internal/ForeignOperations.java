package io.purgatory.internal;

import org.jspecify.annotations.Nullable;

/**
 * The hooks of an operation state whose class is not a {@code DelayedOperation} (Kafka's
 * {@code TimerTask} and {@code DelayedOperation}, which cannot extend it): implemented by
 * {@code purgatory-kafka}'s bridge and registered in {@link Secrets#registerForeignOperations};
 * the core's operation state calls them for its states of that class. Not for applications.
 *
 * <p>Thread-safe: called under the state's lock for the try and the completion, as the
 * operation state documents.
 *
 * @param <S> the bridge's state type
 * @param <T> the timer type ({@code Timer})
 */
public interface ForeignOperations<S, T> {

    /** Whether {@code state} is one of the bridge's. */
    boolean owns(Object state);

    /** The try, under the state's lock. */
    boolean tryComplete(S state);

    /** Runs once, under the state's lock, when the operation completes. */
    void onComplete(S state);

    /** Runs after {@link #onComplete} when the operation expired. */
    void onExpiration(S state);

    /** The delay of the expiry in ms, not negative. */
    long delayMs(S state);

    /**
     * What the state does when its node is due: for a plain task (never offered to a purgatory) its
     * run, for an operation its expiry (Kafka's {@code run()}: {@code forceComplete()}, then
     * {@code onExpiration()}, through whatever a subclass overrides). On the timer's expiry thread.
     */
    void runDue(S state);

    /** The timer a plain task (never offered to a purgatory) was added to, or null. */
    @Nullable T timer(S state);
}
