package io.purgatory.internal;

/**
 * The timer's control of a node of a class outside its package (an operation, which is its own
 * expiry): add it, cancel it, read its state and deadline. Implemented by {@code io.purgatory.timer};
 * taken by the operation state from {@link Secrets#nodeControl()}. Not for applications.
 *
 * <p>Thread-safe: the operations are those of the node's timer.
 *
 * @param <N> the node type ({@code TimerNode})
 * @param <T> the timer type ({@code Timer})
 */
public interface NodeControl<N, T> {

    /**
     * Adds {@code node} to {@code timer}, due {@code delayMs} milliseconds from now; a node cancelled
     * before does nothing.
     *
     * @throws IllegalArgumentException if the node is not a foreign node the registered
     *     {@link NodeOwner} owns, or the timer is not one of this library's
     * @throws IllegalStateException if the node was already added to a timer, or the timer is closed
     */
    void add(T timer, N node, long delayMs);

    /** Cancels the node; true if this call cancelled it. */
    boolean cancel(N node);

    /** True once the node expired: its timer took it to run. */
    boolean isExpired(N node);

    /** True once the node was cancelled. */
    boolean isCancelled(N node);

    /** The node's deadline in ms on its timer's clock; {@code Long.MAX_VALUE} before it was added. */
    long deadlineMs(N node);
}
