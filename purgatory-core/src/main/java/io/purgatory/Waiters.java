package io.purgatory;

import org.jspecify.annotations.Nullable;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;

/**
 * Waits without a subclass: "answer when the position of key K reaches P, or after T", as a
 * {@link CompletableFuture} ({@link #waitFor}) or as a blocking call ({@link #await}), and "when
 * all these futures have completed, or after T" ({@link #waitForAll}, Kafka's
 * {@code DelayedFuture}). Each wait ends with a {@link WaitOutcome}: REACHED, TIMED_OUT, CLOSED
 * (by {@link #close()}) or CANCELLED (by {@link #cancel(Object)}); none of these is an exception.
 *
 * <h2>Positions</h2>
 * A key's position is a number that only grows (an index, an offset, a high watermark) and that
 * the server keeps itself: the function given to the constructor reads it. After raising a key's
 * position, call {@link #advance(Object)}: it answers the waits on that key at or below the new
 * position, and only those (a position watch: O(1) when none is due).
 *
 * <h2>How it maps onto the purgatory</h2>
 * Every wait is one {@link DelayedOperation} in a {@link DelayedOperationPurgatory} this object
 * owns: {@code waitFor} and {@code await} offer it with {@code tryCompleteElseWatchPosition(key,
 * position)}, {@code waitForAll} with no key (the futures' callbacks complete it), {@code advance}
 * is the purgatory's {@code advance(key, position)}, {@code cancel(key)} its {@code cancelForKey},
 * {@code close()} its {@code close()}. The outcome is the operation's {@link Completion}. So the
 * purgatory's guarantees hold: every wait is answered exactly once, and nothing leaves a wait
 * unanswered. Cancelling a returned future (or completing it yourself in any way, {@code orTimeout}
 * and {@code obtrudeValue} included) cancels its operation at once: it leaves the watch lists and
 * the timer and is never expired.
 *
 * <p>A future is completed on the thread that ended the wait (the caller of {@code advance}, the
 * timer's, the closer's), under the wait's operation lock: dependent stages added without
 * {@code Async} run there too, so keep them short and non-blocking, or add them with an executor.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe: every field is final; the purgatory is thread-safe, and the position function must
 * be (it is called by {@code advance}, once per call, and by {@code waitFor} and {@code await}
 * under the new wait's lock: cheap, no locks of the caller's that {@code advance}'s caller may
 * hold). If it throws, the call that read it rethrows and leaves every wait as it was.
 *
 * @param <K> the keys (value equality: records are ideal)
 */
public final class Waiters<K> implements AutoCloseable {

    private final DelayedOperationPurgatory<DelayedOperation> purgatory;
    private final ToLongFunction<? super K> positions;

    /**
     * Waits in a purgatory of its own, with its own timer.
     *
     * @param positions reads a key's current position
     */
    public Waiters(String name, ToLongFunction<? super K> positions) {
        this(DelayedOperationPurgatory.builder(name), positions);
    }

    /**
     * Waits in a purgatory built from {@code purgatory} (its timer, purge interval, reaper), owned
     * by this object: {@link #close()} closes it.
     *
     * @param positions reads a key's current position
     */
    public Waiters(DelayedOperationPurgatory.Builder<DelayedOperation> purgatory, ToLongFunction<? super K> positions) {
        this.positions = Objects.requireNonNull(positions, "positions");
        this.purgatory = purgatory.build();
    }

    /**
     * A future that completes with REACHED once key's position is at least {@code position}
     * (at once if it already is), TIMED_OUT after {@code timeout}, CLOSED or CANCELLED. Cancelling
     * it removes the wait at once, and so does completing it any other way ({@code complete},
     * {@code completeAsync}, {@code obtrudeValue}, {@code orTimeout}...). A stage derived from it
     * ({@code thenApply}...) is a different future: cancelling that one leaves the wait in place.
     *
     * @throws IllegalArgumentException if the timeout is negative
     * @throws RuntimeException what the position function threw; no wait is left behind
     */
    public CompletableFuture<WaitOutcome> waitFor(K key, long position, Duration timeout) {
        FutureWaiter<K> waiter = new FutureWaiter<>(delayMs(timeout), positions, key, position);
        offer(waiter);
        return waiter.future;
    }

    /**
     * Blocks until key's position is at least {@code position} (REACHED; at once if it already
     * is), {@code timeout} passes (TIMED_OUT), or the wait is closed or cancelled. Only the caller's
     * thread waits, parked with {@link LockSupport} (no monitor held: a virtual thread unmounts); the
     * timeout is the purgatory's timer, not a timed park.
     *
     * @throws InterruptedException if the thread is interrupted before or while it waits; the wait
     *     is then cancelled (it leaves the purgatory), and its outcome, if it had one, is not reported
     * @throws IllegalArgumentException if the timeout is negative
     * @throws RuntimeException what the position function threw; no wait is left behind
     */
    public WaitOutcome await(K key, long position, Duration timeout) throws InterruptedException {
        long delayMs = delayMs(timeout);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        ParkingWaiter<K> waiter = new ParkingWaiter<>(delayMs, positions, key, position);
        offer(waiter);
        WaitOutcome outcome;
        while ((outcome = waiter.outcome) == null) {
            LockSupport.park(waiter);
            if (Thread.interrupted()) {
                waiter.cancel();
                throw new InterruptedException();
            }
        }
        return outcome;
    }

    /**
     * A future that completes with REACHED once every one of {@code futures} has completed
     * (normally, exceptionally or cancelled; at once if all have), TIMED_OUT after {@code timeout},
     * CLOSED or CANCELLED; Kafka's {@code DelayedFuture}. The given futures are only watched, never
     * cancelled: if they should stop on a timeout, cancel them then. Until each completes, it keeps
     * a reference to the wait (its callback); cancelling the returned future removes the wait from
     * the purgatory at once.
     *
     * @throws IllegalArgumentException if the timeout is negative
     */
    @SuppressWarnings("FutureReturnValueIgnored") // the dependent stage is the waiter's callback; its result is unused
    public CompletableFuture<WaitOutcome> waitForAll(Collection<? extends CompletableFuture<?>> futures, Duration timeout) {
        AllOfWaiter waiter = new AllOfWaiter(delayMs(timeout), futures.size());
        for (CompletableFuture<?> future : futures) {
            future.whenComplete(waiter);
        }
        purgatory.tryCompleteElseWatch(waiter, List.of()); // no key: the callbacks complete it, or its timer
        return waiter.future;
    }

    /**
     * Key's position has grown: answers the waits on key at or below its position now (read once,
     * with the position function), lowest first, and no others. A wait it answers is not read
     * again: if the position function throws, this call rethrows and answers nothing, and every
     * wait stays as it was, for the next advance.
     *
     * @return how many waits this call answered
     */
    public int advance(K key) {
        return purgatory.advance(key, positions.applyAsLong(key));
    }

    /**
     * Ends every wait on key with CANCELLED (a deleted key, say); waits offered afterwards wait as
     * usual.
     *
     * @return how many waits this call ended
     */
    public int cancel(K key) {
        return purgatory.cancelForKey(key, null);
    }

    /**
     * The metrics of the purgatory the waits are in; {@code delayed()} is the number of waits not
     * answered yet. Every wait answered counts as completed except TIMED_OUT and CLOSED, which
     * count as expired.
     */
    public PurgatoryMetrics metrics() {
        return purgatory.metrics();
    }

    public String name() {
        return purgatory.name();
    }

    /** Answers every pending wait with CLOSED, on this thread; waits begun afterwards end CLOSED at once. Idempotent. */
    @Override
    public void close() {
        purgatory.close();
    }

    @Override
    public String toString() {
        return "Waiters[" + purgatory + "]";
    }

    /**
     * Offers a position wait; if that throws (the position function did), cancels it, so that
     * nothing is left in the purgatory for a caller who never got a handle, and rethrows.
     */
    private void offer(PositionWaiter<K> waiter) {
        try {
            purgatory.tryCompleteElseWatchPosition(waiter, waiter.key, waiter.position);
        } catch (RuntimeException | Error e) {
            waiter.cancel();
            throw e;
        } finally {
            waiter.offered = true;
        }
    }

    /** The timeout in milliseconds, {@code Long.MAX_VALUE} for one too long to count; for {@link HandOff} too. */
    static long delayMs(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        try {
            return timeout.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Waits for key's position to reach {@code position}. It reads the position function only while
     * {@code waitFor} or {@code await} offers it, on the offering thread. Any other try comes from an
     * advance that read key's position at or above this wait's (the purgatory tries only those) and
     * has taken it out of the position index: re-reading there could only lose the wait, were the
     * function to throw, so it completes. Thread-safe: final fields, and {@code offered} is volatile.
     */
    private abstract static class PositionWaiter<K> extends Waiter {
        private final ToLongFunction<? super K> positions;
        private final K key;
        private final long position;
        /** The thread that called {@code waitFor} or {@code await}. */
        private final Thread caller = Thread.currentThread();
        /** Set once the offer has returned or thrown; from then on every try is an advance's. */
        volatile boolean offered;

        PositionWaiter(long delayMs, ToLongFunction<? super K> positions, K key, long position) {
            super(delayMs);
            this.positions = positions;
            this.key = Objects.requireNonNull(key, "key");
            this.position = position;
        }

        @Override
        public final boolean tryComplete() {
            boolean takenDueByAnAdvance = offered || Thread.currentThread() != caller;
            return (takenDueByAnAdvance || positions.applyAsLong(key) >= position) && forceComplete();
        }
    }

    /** Answers a {@link WaiterFuture}. Thread-safe: the future is. */
    private static final class FutureWaiter<K> extends PositionWaiter<K> {
        private final WaiterFuture future = new WaiterFuture(this);

        FutureWaiter(long delayMs, ToLongFunction<? super K> positions, K key, long position) {
            super(delayMs, positions, key, position);
        }

        @Override
        void answer(WaitOutcome outcome) {
            future.answer(outcome);
        }
    }

    /**
     * Answers the thread that called {@code await}: publishes the outcome (volatile), then unparks
     * the thread. Thread-safe: {@code outcome} is written once, under the operation's lock.
     */
    private static final class ParkingWaiter<K> extends PositionWaiter<K> {
        volatile @Nullable WaitOutcome outcome;

        ParkingWaiter(long delayMs, ToLongFunction<? super K> positions, K key, long position) {
            super(delayMs, positions, key, position);
        }

        @Override
        void answer(WaitOutcome answer) {
            outcome = answer;
            LockSupport.unpark(super.caller);
        }
    }

    /**
     * Counts the futures still running down to zero, then completes (the callback of each
     * future). Thread-safe: the count is atomic.
     */
    private static final class AllOfWaiter extends Waiter implements BiConsumer<Object, Throwable> {
        private final WaiterFuture future = new WaiterFuture(this);
        private final AtomicInteger running;

        AllOfWaiter(long delayMs, int futures) {
            super(delayMs);
            this.running = new AtomicInteger(futures);
        }

        @Override
        public boolean tryComplete() {
            return running.get() == 0 && forceComplete();
        }

        @Override
        public void accept(Object result, Throwable failure) {
            if (running.decrementAndGet() == 0) {
                forceComplete();
            }
        }

        @Override
        void answer(WaitOutcome outcome) {
            future.answer(outcome);
        }
    }
}
