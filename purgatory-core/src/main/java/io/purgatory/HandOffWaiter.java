package io.purgatory;

import io.purgatory.internal.OperationStates;
import org.jspecify.annotations.Nullable;
import java.util.List;

/**
 * The operation behind every take of a {@link HandOff}: a {@link DelayedOperation} that takes one
 * item in its {@link #tryComplete()}, under its lock, and completes with it by {@link #forceComplete()}
 * in the same hold of the lock.
 *
 * <p>The hand-off offers an item to a waiter by setting {@code serving} to the key's lane and calling
 * {@code tryComplete} under the waiter's lock ({@link Trial#UNDER_LOCK}); any other try (the
 * purgatory's, while it parks the operation) finds {@code serving} null and takes nothing. Two
 * guarantees of {@link DelayedOperation} make the take safe: no {@code tryComplete} runs once the
 * operation has completed (the trial checks it under the lock, and completion happens only under
 * the lock), and a {@code forceComplete} called under the lock cannot lose to a racing expiry or
 * cancellation (those complete under the same lock, and find it completed). So an item leaves its
 * queue only into a waiter that completes with it.
 *
 * <p>The answer ({@link Handed}) is worked out in {@code onComplete}, under the lock, and delivered
 * by {@link #finish()} once the thread that completed the waiter holds no lock: by the hand-off's
 * thread for a take, in {@code onExpiration} for a timeout or a close. So a caller's dependent stages
 * run under no lock of the hand-off's and may call it (offer to another key, say).
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock guards {@code serving}, {@code takenKey}, {@code takenItem},
 * {@code handed} and the writing of {@code nodes}' elements (each written once, before the waiter
 * completes; read by {@link #finish()} after it has). A node's links are its lane's.
 *
 * @param <K> the keys
 * @param <V> the items
 */
abstract class HandOffWaiter<K, V> extends DelayedOperation {

    /** What offering an item to a waiter came to. */
    enum Served {
        /** The waiter took an item and completed with it. */
        TAKEN,
        /** The waiter is waiting still: there was no item for it. */
        NOTHING,
        /** The waiter had completed before: it takes nothing. */
        DONE
    }

    /**
     * How the hand-off offers a lane's next item to a waiter. {@link #UNDER_LOCK} is the only one
     * the library uses; the interface is the seam through which the model check plants a broken one.
     */
    interface Trial {
        Served offer(HandOffWaiter<?, ?> waiter, HandOffLane<?, ?> lane);

        /** Under the waiter's lock: a waiter that has completed is not tried; one that takes completes. */
        Trial UNDER_LOCK = (waiter, lane) -> {
            Served served;
            OperationStates.lock(waiter);
            try {
                served = waiter.isCompleted() ? Served.DONE : waiter.takeFrom(lane) ? Served.TAKEN : Served.NOTHING;
            } finally {
                OperationStates.unlock(waiter);
            }
            Operations.retryIfPending(waiter);
            return served;
        };
    }

    private final HandOff<K, V> handOff;
    final List<K> keys;
    /** The user's store, or null for the built-in queues. */
    private final HandOff.@Nullable Taker<K, V> taker;
    /** The waiter's node in the lane of each key it waits on, by the key's index; null where it is not linked yet. */
    final HandOffLane.@Nullable Node[] nodes;
    private @Nullable HandOffLane<?, ?> serving;
    private @Nullable K takenKey;
    private @Nullable V takenItem;
    private @Nullable Handed<K, V> handed;

    HandOffWaiter(HandOff<K, V> handOff, List<K> keys, long delayMs, HandOff.@Nullable Taker<K, V> taker) {
        super(delayMs);
        this.handOff = handOff;
        this.keys = keys;
        this.taker = taker;
        this.nodes = new HandOffLane.Node[keys.size()];
    }

    /** True if the waiter takes from the built-in queues (no {@link HandOff.Taker}). */
    final boolean takesQueued() {
        return taker == null;
    }

    /**
     * Offers the waiter the next item of lane: calls {@link #tryComplete()} with {@code serving} set.
     * The caller holds the lane's monitor and (unless it is a broken trial) the waiter's lock.
     */
    final boolean takeFrom(HandOffLane<?, ?> lane) {
        serving = lane;
        try {
            return tryComplete();
        } finally {
            serving = null;
        }
    }

    @Override
    @SuppressWarnings("unchecked") // serving is one of this waiter's lanes: HandOffLane<K, V>
    public final boolean tryComplete() {
        HandOffLane<K, V> lane = (HandOffLane<K, V>) serving;
        if (lane == null) {
            return false; // the purgatory's tries while parking: the hand-off offers items itself
        }
        V item = taker == null ? lane.pollItem() : taker.take(lane.key);
        if (item == null) {
            return false;
        }
        takenKey = lane.key;
        takenItem = item;
        return forceComplete();
    }

    @Override
    public final void onComplete() {
        Completion how = completion();
        assert how != null; // set before onComplete runs
        handed = switch (how) {
            case COMPLETED -> Handed.taken(requireNonNull(takenKey), requireNonNull(takenItem));
            case EXPIRED -> Handed.none(Handed.Outcome.TIMED_OUT);
            case CLOSED -> Handed.none(Handed.Outcome.CLOSED);
            case CANCELLED -> null; // its future was cancelled (or completed) by its caller: no answer
        };
    }

    /** Timed out or closed: leaves the lanes and answers, with the lock released. */
    @Override
    public final void onExpiration() {
        finish();
    }

    /**
     * After the waiter completed, on the thread that completed it, holding no lock: unlinks it from
     * every lane it is still in, then delivers its answer (none for a cancelled waiter).
     */
    final void finish() {
        handOff.leave(this);
        Handed<K, V> answer = handed;
        if (answer != null) {
            deliver(answer);
        }
    }

    /** Hands the answer to the waiter's caller; once, holding no lock. */
    abstract void deliver(Handed<K, V> answer);

    private static <T> T requireNonNull(@Nullable T value) {
        if (value == null) {
            throw new IllegalStateException("completed without an item");
        }
        return value;
    }

    @Override
    public String toString() {
        return "HandOffWaiter" + keys + "[" + completion() + "]";
    }
}
