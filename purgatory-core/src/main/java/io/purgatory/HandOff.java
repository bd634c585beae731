package io.purgatory;

import io.purgatory.internal.OperationStates;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import org.jspecify.annotations.Nullable;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each item to at most one waiter, oldest waiter first; an item no waiter takes stays where it
 * is. A job queue whose workers long-poll for the next job, Redis's {@code BLPOP}, a
 * {@code ReceiveMessage} with a wait: a waiter asks for the next item of one or more keys, with a
 * timeout ({@link #take}, {@link #takeBlocking}); a producer {@link #offer}s an item to a key.
 *
 * <h2>Guarantees</h2>
 * <ul>
 * <li>Each item goes to at most one waiter, and none is lost: an item leaves its queue only into a
 *     waiter that completes with it ({@link Handed.Outcome#TAKEN}). A waiter that times out, is
 *     cancelled, or is closed at the moment an item arrives leaves the item to the next waiter, or in
 *     the queue.
 * <li>Waiters of a key are served oldest first: an item offered to a key goes to the key's waiter
 *     that began waiting on it first, of those still waiting. A new waiter takes an item already
 *     queued only if no older waiter on that key is waiting.
 * <li>A waiter on several keys takes, when it begins, from the first of its keys (in the order it
 *     named them) that has an item, as Redis's {@code BLPOP k1 k2} does. Once it waits, it takes
 *     from whichever of its keys is offered an item first.
 * <li>{@link #close()} answers every waiter with {@link Handed.Outcome#CLOSED}; takes begun after
 *     it end CLOSED at once. Queued items stay, readable with {@link #poll}.
 * </ul>
 *
 * <h2>Where the items live</h2>
 * Either in the hand-off's own queues, one FIFO per key: {@link #offer(Object, Object)} appends,
 * {@link #take(List, Duration)} and {@link #poll} remove from the head. Or in the user's own store:
 * add the item to the store, then call {@link #offered(Object)}; waiters begun with a
 * {@link Taker} ({@link #take(List, Duration, Taker)}) take from the store through it. Use one or the
 * other for a key.
 *
 * <h2>Timeouts</h2>
 * A take's timeout is a {@link Duration}: {@link Duration#ZERO} takes only an item there already
 * (else TIMED_OUT at once, without waiting); {@link #FOREVER} (or any duration beyond about 68
 * years) waits until an item, a cancellation or {@code close()}.
 *
 * <h2>How it is built</h2>
 * Each take is a {@link DelayedOperation} in a {@link DelayedOperationPurgatory} the hand-off owns:
 * the purgatory's timer expires it (TIMED_OUT), and its {@code close()} closes it (CLOSED). The
 * waiters of a key wait in the key's own FIFO ({@link HandOffLane}), so that serving them oldest
 * first does not depend on the order of the purgatory's watch lists, and an offer stops at the
 * first waiter that takes the item: a key with 10,000 waiters costs an offer one waiter, not
 * 10,000. The item is taken inside the operation's {@code tryComplete}, under its lock, which then
 * calls {@code forceComplete}. That relies on two guarantees of {@code DelayedOperation}: no
 * {@code tryComplete} runs after the operation completed, and a {@code forceComplete} called under
 * its lock wins against a racing expiry or cancellation (both complete under the same lock). So
 * an item is never taken by a waiter that then times out. A future cancelled by its caller cancels
 * its operation under the same lock.
 *
 * <h2>Answers</h2>
 * A future is completed, and a blocked taker woken, on the thread that ended the wait (the
 * offerer's, the timer's, the closer's), once it holds no lock of the hand-off's: dependent stages
 * added without {@code Async} run there and may call the hand-off (offer the item to another key,
 * say). Cancelling a returned future ({@code cancel}, or completing it in any way:
 * {@code orTimeout}...) stops its waiter at once; it takes no item afterwards. If the waiter has
 * taken an item already, the cancel returns false and the future holds the item.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. Each key's queue and waiters are guarded by its lane's monitor (one lane per key that
 * has an item or a waiter, in a {@link ConcurrentHashMap}); lock order: a lane's monitor, then a
 * waiter's operation lock; no thread holds two lanes. A {@link Taker} is called under both, and must
 * not call the hand-off.
 *
 * @param <K> the keys (value equality: strings, records)
 * @param <V> the items
 */
public final class HandOff<K, V> implements AutoCloseable {

    /** A timeout that never passes: the take waits until it gets an item, is cancelled or the hand-off closes. */
    public static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    /**
     * Takes one item of a key from the user's own store.
     *
     * @param <K> the keys
     * @param <V> the items
     */
    @FunctionalInterface
    public interface Taker<K, V> {
        /**
         * Removes and returns one item of key (the next in the store's order), or null if it has
         * none. Called only while the waiter has not completed, under its lock and its key's lane
         * lock: quick, non-blocking, and no calls into the hand-off. An item it returns goes to that
         * waiter, always.
         *
         * @param key the key to take from
         * @return the item removed from the store, or null if key has none
         */
        @Nullable V take(K key);
    }

    private static final Logger LOG = LoggerFactory.getLogger(HandOff.class);

    private final DelayedOperationPurgatory<HandOffWaiter<?, ?>> purgatory;
    private final ConcurrentHashMap<K, HandOffLane<K, V>> lanes = new ConcurrentHashMap<>();
    private final HandOffWaiter.Trial trial;
    private volatile boolean closed;

    private HandOff(Builder<K, V> builder) {
        DelayedOperationPurgatory.Builder<HandOffWaiter<?, ?>> purgatoryBuilder = DelayedOperationPurgatory.builder(builder.name);
        if (builder.timer != null) {
            purgatoryBuilder.timer(builder.timer);
        }
        purgatoryBuilder.reaperEnabled(builder.reaperEnabled);
        this.purgatory = purgatoryBuilder.build();
        this.trial = builder.trial;
    }

    /**
     * A builder of a hand-off.
     *
     * @param name the hand-off's name, which its purgatory and metrics carry
     * @param <K> the keys
     * @param <V> the items
     * @return a builder; {@link Builder#build()} makes the hand-off
     */
    public static <K, V> Builder<K, V> builder(String name) {
        return new Builder<>(name);
    }

    // --- waiters ---

    /**
     * A future answered with the next item of the first of {@code keys} that has one, from the
     * built-in queues: at once if one is queued (and no older waiter on that key waits), else when
     * an item is offered to one of the keys and this waiter is the oldest waiting for it;
     * TIMED_OUT after {@code timeout}; CLOSED by {@link #close()}.
     *
     * @param keys one or more keys, in the order to take from them
     * @param timeout how long to wait: {@link Duration#ZERO} not at all, {@link #FOREVER} for ever
     * @return the future answer: TAKEN with its key and item, TIMED_OUT or CLOSED
     * @throws IllegalArgumentException if keys is empty or timeout negative
     * @throws NullPointerException if a key is null
     */
    public CompletableFuture<Handed<K, V>> take(List<K> keys, Duration timeout) {
        return begin(new FutureWaiter<>(this, keyList(keys), delayMs(timeout), null)).future;
    }

    /**
     * As {@link #take(List, Duration)}, from the user's own store through {@code taker}: call
     * {@link #offered(Object)} after adding an item to the store.
     *
     * @param keys one or more keys, in the order to take from them
     * @param timeout how long to wait: {@link Duration#ZERO} not at all, {@link #FOREVER} for ever
     * @param taker removes and returns one item of a key from the store, or null
     * @return the future answer: TAKEN with its key and item, TIMED_OUT or CLOSED
     * @throws IllegalArgumentException if keys is empty or timeout negative
     * @throws NullPointerException if a key or taker is null
     */
    public CompletableFuture<Handed<K, V>> take(List<K> keys, Duration timeout, Taker<K, V> taker) {
        Objects.requireNonNull(taker, "taker");
        return begin(new FutureWaiter<>(this, keyList(keys), delayMs(timeout), taker)).future;
    }

    /**
     * As {@link #take(List, Duration)}, blocking the calling thread until the answer (parked with
     * {@link LockSupport}: a virtual thread unmounts; the timeout is the hand-off's timer).
     *
     * @param keys one or more keys, in the order to take from them
     * @param timeout how long to wait: {@link Duration#ZERO} not at all, {@link #FOREVER} for ever
     * @return the answer: TAKEN with its key and item, TIMED_OUT or CLOSED
     * @throws InterruptedException if the thread is interrupted before or while it waits: the take
     *     is then cancelled and takes nothing. If it had already taken an item (or timed out, or
     *     closed), that answer is returned instead, with the thread's interrupt status set.
     */
    public Handed<K, V> takeBlocking(List<K> keys, Duration timeout) throws InterruptedException {
        return takeBlocking(keyList(keys), delayMs(timeout), null);
    }

    /**
     * As {@link #takeBlocking(List, Duration)}, from the user's own store through {@code taker}.
     *
     * @param keys one or more keys, in the order to take from them
     * @param timeout how long to wait: {@link Duration#ZERO} not at all, {@link #FOREVER} for ever
     * @param taker removes and returns one item of a key from the store, or null
     * @return the answer: TAKEN with its key and item, TIMED_OUT or CLOSED
     * @throws InterruptedException if the thread is interrupted before or while it waits, as for
     *     {@link #takeBlocking(List, Duration)}
     */
    public Handed<K, V> takeBlocking(List<K> keys, Duration timeout, Taker<K, V> taker) throws InterruptedException {
        return takeBlocking(keyList(keys), delayMs(timeout), Objects.requireNonNull(taker, "taker"));
    }

    private Handed<K, V> takeBlocking(List<K> keys, long delayMs, @Nullable Taker<K, V> taker) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        ParkingWaiter<K, V> waiter = begin(new ParkingWaiter<>(this, keys, delayMs, taker));
        Handed<K, V> answer;
        while ((answer = waiter.answer) == null) {
            LockSupport.park(waiter);
            if (Thread.interrupted()) {
                return waiter.interrupted();
            }
        }
        return answer;
    }

    /**
     * Takes the first item queued in the built-in queues of {@code keys}, in their order, without
     * waiting: Redis's {@code LPOP}. Waiters never hold a queued item back, so this takes what is
     * there.
     *
     * @param keys one or more keys, in the order to take from them
     * @return the key and item taken (outcome TAKEN), or empty if none of the keys has an item
     */
    public Optional<Handed<K, V>> poll(List<K> keys) {
        for (K key : keyList(keys)) {
            HandOffLane<K, V> lane = lanes.get(key);
            if (lane == null) {
                continue;
            }
            synchronized (lane) {
                V item = lane.pollItem();
                if (item != null) {
                    lane.retireIfEmpty(lanes);
                    return Optional.of(Handed.taken(key, item));
                }
            }
        }
        return Optional.empty();
    }

    // --- producers ---

    /**
     * Appends {@code item} at the tail of key's built-in queue, then hands the queue's items to key's
     * waiters, oldest first, until the queue or the waiters run out. After {@link #close()} the item
     * stays queued (for {@link #poll}).
     *
     * @param key the key whose queue takes the item
     * @param item the item
     * @throws NullPointerException if key or item is null
     */
    public void offer(K key, V item) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(item, "item");
        serve(key, item);
    }

    /**
     * An item was added to key's store (the user's own, read through a {@link Taker}): offers the
     * store's items to key's waiters, oldest first, until one takes nothing.
     *
     * @param key the key an item was added to
     */
    public void offered(K key) {
        serve(Objects.requireNonNull(key, "key"), null);
    }

    /**
     * How many items key's built-in queue holds.
     *
     * @param key the key
     * @return the items queued, 0 for a key never offered to
     */
    public int queued(K key) {
        HandOffLane<K, V> lane = lanes.get(Objects.requireNonNull(key, "key"));
        return lane == null ? 0 : lane.queued();
    }

    /**
     * How many waiters wait on key now (a waiter on several keys counts for each).
     *
     * @param key the key
     * @return the waiters waiting on it
     */
    public int waiting(K key) {
        HandOffLane<K, V> lane = lanes.get(Objects.requireNonNull(key, "key"));
        return lane == null ? 0 : lane.waiting();
    }

    /**
     * The metrics of the purgatory the waiters are in: {@code delayed()} is the number of waiters
     * waiting; a waiter that took an item, or was cancelled, counts as completed, one that timed out
     * or was closed as expired.
     *
     * @return the metrics, read live
     */
    public PurgatoryMetrics metrics() {
        return purgatory.metrics();
    }

    /**
     * The hand-off's name, as given to {@link #builder(String)}.
     *
     * @return the name
     */
    public String name() {
        return purgatory.name();
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Answers every waiter with CLOSED, on this thread; takes begun afterwards end CLOSED at once.
     * Queued items stay readable with {@link #poll}. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        purgatory.close();
    }

    @Override
    public String toString() {
        return "HandOff[" + purgatory.name() + ", keys " + lanes.size() + ", waiting " + purgatory.numDelayed() + "]";
    }

    // --- internals ---

    /**
     * Begins a waiter: walks its keys in order; on each, under the lane's monitor, takes an item if
     * the key has one and no older waiter, else links the waiter at the tail of the key's waiters
     * (unless its timeout is zero). Then parks it in the purgatory, for its timeout; a waiter
     * completed meanwhile (it took an item, or the hand-off closed) is answered instead.
     */
    private <W extends HandOffWaiter<K, V>> W begin(W waiter) {
        if (closed) {
            Operations.expire(waiter, Completion.CLOSED);
            return waiter;
        }
        boolean waits = waiter.delayMs() > 0;
        HandOffWaiter.Served served = HandOffWaiter.Served.NOTHING;
        try {
            for (int i = 0; i < waiter.keys.size() && served == HandOffWaiter.Served.NOTHING; i++) {
                served = join(waiter, i, waits);
            }
        } catch (RuntimeException | Error e) {
            // a Taker threw: the waiter leaves the lanes it joined and the caller gets the exception,
            // unless it took an item from one of them meanwhile: then its future holds the item
            if (!waiter.cancel()) {
                LOG.warn("HandOff {}: a Taker threw, but the take had taken an item already", name(), e);
                return waiter;
            }
            waiter.finish();
            throw e;
        }
        if (served == HandOffWaiter.Served.TAKEN) {
            waiter.finish();
        } else if (served == HandOffWaiter.Served.NOTHING) {
            if (waits) {
                purgatory.tryCompleteElseWatch(waiter, List.of()); // its lanes serve it; the purgatory times it out
            } else {
                Operations.expire(waiter, Completion.EXPIRED);
            }
        }
        return waiter;
    }

    /** One key of {@link #begin}: takes from the key's lane, or links the waiter into it. */
    private HandOffWaiter.Served join(HandOffWaiter<K, V> waiter, int index, boolean waits) {
        K key = waiter.keys.get(index);
        while (true) {
            HandOffLane<K, V> lane = lanes.computeIfAbsent(key, HandOffLane::new);
            synchronized (lane) {
                if (lane.isRetired()) {
                    continue;
                }
                HandOffWaiter.Served served = HandOffWaiter.Served.NOTHING;
                if (lane.firstWaiting() == null) {
                    served = trial.offer(waiter, lane);
                }
                if (served == HandOffWaiter.Served.NOTHING && waits) {
                    OperationStates.lock(waiter);
                    try {
                        if (waiter.isCompleted()) {
                            served = HandOffWaiter.Served.DONE;
                        } else {
                            HandOffLane.Node node = new HandOffLane.Node(waiter, lane);
                            waiter.nodes[index] = node;
                            lane.link(node);
                        }
                    } finally {
                        OperationStates.unlock(waiter);
                    }
                }
                lane.retireIfEmpty(lanes);
                return served;
            }
        }
    }

    /**
     * Appends item (if not null) to key's queue and offers the key's items to its waiters, oldest
     * first, all in one hold of the lane's monitor; then finishes the waiters that took one.
     */
    private void serve(K key, @Nullable V item) {
        List<HandOffWaiter<?, ?>> served = new ArrayList<>(1);
        try {
            while (true) {
                HandOffLane<K, V> lane = item != null ? lanes.computeIfAbsent(key, HandOffLane::new) : lanes.get(key);
                if (lane == null) {
                    return;
                }
                synchronized (lane) {
                    if (lane.isRetired()) {
                        continue;
                    }
                    if (item != null) {
                        lane.append(item);
                    }
                    try {
                        serveLocked(lane, served);
                    } finally {
                        lane.retireIfEmpty(lanes);
                    }
                }
                return;
            }
        } finally {
            for (HandOffWaiter<?, ?> waiter : served) { // also when a Taker threw: these took their items
                waiter.finish();
            }
        }
    }

    /** Offers lane's items to its waiters, oldest first, until the items or the waiters run out; adds those that took one to served. */
    @GuardedBy("lane")
    private void serveLocked(HandOffLane<K, V> lane, List<HandOffWaiter<?, ?>> served) {
        for (HandOffLane.Node node; (node = lane.first()) != null; ) {
            HandOffWaiter<?, ?> waiter = node.waiter;
            if (waiter.takesQueued() && !lane.hasItems()) {
                return;
            }
            HandOffWaiter.Served outcome = trial.offer(waiter, lane);
            if (outcome == HandOffWaiter.Served.NOTHING) {
                return;
            }
            lane.unlink(node);
            if (outcome == HandOffWaiter.Served.TAKEN) {
                served.add(waiter);
            }
        }
    }

    /** Unlinks a completed waiter from every lane it is still linked in. */
    void leave(HandOffWaiter<K, V> waiter) {
        assert waiter.isCompleted();
        for (HandOffLane.Node node : waiter.nodes) {
            if (node != null) {
                @SuppressWarnings("unchecked") // the waiter's lanes are this hand-off's
                HandOffLane<K, V> lane = (HandOffLane<K, V>) node.lane;
                synchronized (lane) {
                    lane.unlink(node);
                    lane.retireIfEmpty(lanes);
                }
            }
        }
    }

    /** The timeout in milliseconds, rounded up (a take never times out early); {@code Long.MAX_VALUE} for {@link #FOREVER}. */
    private static long delayMs(Duration timeout) {
        long ms = DelayedOperation.delayMs(timeout, "timeout");
        return ms != Long.MAX_VALUE && timeout.getNano() % 1_000_000 != 0 ? ms + 1 : ms;
    }

    private static <K> List<K> keyList(List<K> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a take needs at least one key");
        }
        for (K key : keys) {
            Objects.requireNonNull(key, "key");
        }
        return keys;
    }

    /** A take answered through a future. Thread-safe: the future is. */
    private static final class FutureWaiter<K, V> extends HandOffWaiter<K, V> {
        private final HandOffFuture<K, V> future = new HandOffFuture<>(this);

        FutureWaiter(HandOff<K, V> handOff, List<K> keys, long delayMs, @Nullable Taker<K, V> taker) {
            super(handOff, keys, delayMs, taker);
        }

        @Override
        void deliver(Handed<K, V> answer) {
            future.answer(answer);
        }
    }

    /** A take answered by unparking its thread. Thread-safe: {@code answer} is volatile, written once. */
    private static final class ParkingWaiter<K, V> extends HandOffWaiter<K, V> {
        private final Thread caller = Thread.currentThread();
        volatile @Nullable Handed<K, V> answer;

        ParkingWaiter(HandOff<K, V> handOff, List<K> keys, long delayMs, @Nullable Taker<K, V> taker) {
            super(handOff, keys, delayMs, taker);
        }

        @Override
        void deliver(Handed<K, V> handed) {
            answer = handed;
            LockSupport.unpark(caller);
        }

        /** The caller was interrupted: cancels the take, or, if it has an answer already, waits for it and returns it. */
        Handed<K, V> interrupted() throws InterruptedException {
            OperationStates.lock(this);
            boolean stopped;
            try {
                stopped = cancel();
            } finally {
                OperationStates.unlock(this);
            }
            if (stopped) {
                finish();
                throw new InterruptedException();
            }
            Handed<K, V> handed;
            while ((handed = answer) == null) {
                LockSupport.park(this); // delivered, and this thread unparked, once the completing thread leaves its locks
            }
            Thread.currentThread().interrupt();
            return handed;
        }
    }

    /**
     * Builds a hand-off. Default: its own timer, closed by {@link HandOff#close()}; a timer given
     * here is not closed by it.
     */
    public static final class Builder<K, V> {
        private final String name;
        private @Nullable Timer timer;
        private HandOffWaiter.Trial trial = HandOffWaiter.Trial.UNDER_LOCK;
        private boolean reaperEnabled = true;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /**
         * The timer that times the takes out (a {@code MockTimer} in tests); not closed by the hand-off.
         *
         * @param timer the timer
         * @return this builder
         */
        public Builder<K, V> timer(Timer timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /** Visible for testing: how an item is offered to a waiter (the model check plants a broken one). */
        Builder<K, V> trial(HandOffWaiter.Trial trial) {
            this.trial = Objects.requireNonNull(trial, "trial");
            return this;
        }

        /**
         * Visible for testing: without the purgatory's purge reaper thread (a model check runs no
         * thread of its own), the purgatory purges on the thread that crosses its threshold.
         */
        Builder<K, V> withoutReaper() {
            this.reaperEnabled = false;
            return this;
        }

        /**
         * Makes the hand-off, with a timer of its own unless one was given.
         *
         * @return the hand-off
         */
        public HandOff<K, V> build() {
            return new HandOff<>(this);
        }
    }
}
