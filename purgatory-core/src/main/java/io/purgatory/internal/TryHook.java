package io.purgatory.internal;

/**
 * The try of an operation, as {@link OperationState}'s {@code maybeTryComplete} calls it:
 * {@code io.purgatory} gives the one that calls the operation's {@code tryComplete} (a user's, or a
 * bridge's hooks). Called under the operation's lock; what it throws reaches the caller of
 * {@code maybeTryComplete}. Not for applications.
 *
 * <p>Thread-safe: called on the thread that holds the operation's lock.
 */
@FunctionalInterface
public interface TryHook {

    /**
     * Checks whether {@code state} can complete now; if so, completes it.
     *
     * @param state the operation, locked by this thread
     * @return true if this call completed it
     */
    boolean tryComplete(OperationState state);
}
