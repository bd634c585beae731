package io.purgatory.internal;

import org.jspecify.annotations.Nullable;

/**
 * What the timer calls for a node of a class outside its package: implemented by the operation
 * state ({@code io.purgatory}), whose objects are their own timer nodes, and registered in
 * {@link Secrets#registerNodeOwner}. Not for applications.
 *
 * <p>Thread-safe: called from any thread that cancels a node, and from the timer's expiry thread.
 *
 * @param <N> the node type ({@code TimerNode})
 * @param <T> the timer type ({@code Timer})
 */
public interface NodeOwner<N, T> {

    /** Whether {@code node} is one of the owner's: only those may be added through {@link NodeControl}. */
    boolean owns(N node);

    /** The node has expired: run what it does when due, on the timer's expiry thread. */
    void runDue(N node);

    /** The timer the node was added to, or null before it was added. */
    @Nullable T timerOf(N node);
}
