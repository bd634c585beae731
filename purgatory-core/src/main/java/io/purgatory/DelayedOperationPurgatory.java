package io.purgatory;

import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;

import org.jspecify.annotations.Nullable;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds {@link DelayedOperation}s until they complete, by their condition or by expiring.
 *
 * <h2>How it works</h2>
 * {@link #tryCompleteElseWatch} tries the operation; if it cannot complete, the operation watches
 * each of its keys (an entry in the key's {@link WatchList}), is tried once more (the condition may
 * have changed meanwhile), and is then added to the timer, which expires it at its deadline.
 * {@link #checkAndComplete} retries every operation watching one key. Watch lists live in a
 * {@link ConcurrentHashMap}, whose per-bin locking shards them: unrelated keys do not contend.
 *
 * <h2>Keys or positions</h2>
 * An operation watches its keys in one of two forms. With the keys form,
 * {@code tryCompleteElseWatch(op, keys)}, a change to a key is announced with
 * {@code checkAndComplete(key)}, which tries every operation on the key: O(operations parked on
 * key), whatever the change. With the position form, {@code tryCompleteElseWatchPosition(op, key,
 * position)} (or {@code tryCompleteElseWatchPositions(op, positions)}, a map of keys to positions),
 * the operation waits for a number of the key's that only grows (a high watermark) to reach its
 * position; the list keeps such watches in a {@link PositionIndex}
 * ordered by position, and {@code advance(key, p)} tries only those at or below {@code p}, lowest
 * first: O(1) when none is due, O(1) per watch added in increasing order (O(log n) otherwise) and per
 * operation tried. {@code checkAndComplete(key)} still tries both forms, for changes that are not an
 * advance. Kafka's purgatory has the keys form only: every high-watermark advance there walks every
 * produce parked on the partition.
 *
 * <h2>Completion, cancellation and exceptions</h2>
 * Every operation offered completes exactly once, and its {@link DelayedOperation#completion()} says
 * how: {@link Completion#COMPLETED} (its condition), {@link Completion#CANCELLED}
 * ({@link DelayedOperation#cancel(Object)}, or {@link #cancelForKey(Object, Object)}, which completes
 * every operation watching a key with a reason its {@code onComplete} reads),
 * {@link Completion#EXPIRED} (its timer) or {@link Completion#CLOSED} (this purgatory closed). No
 * public method, on the purgatory or on an operation, leaves an operation watched without its expiry
 * or removed without completing it. An exception from user code changes none of that: a
 * {@code tryComplete} that throws counts as {@code false} (the operation keeps waiting); an
 * {@code onComplete} that throws leaves its operation completed (the completion is set before it
 * runs). Each exception reaches the caller of the method that ran the code (the timer logs those of
 * expiries, {@code close()} those of the operations it expires); a method that tries or cancels
 * several operations ({@link #advance}, {@link #checkAndComplete}, {@link #cancelForKey}) tries each
 * of them first and then rethrows the first exception, with the later ones suppressed in it.
 *
 * <h2>Memory</h2>
 * Completed operations leave their watches behind as tombstones that reference nothing (the
 * operation clears them when it completes), so a completed operation and its payload become
 * unreachable at once, whatever {@code purgeInterval} is. Tombstones among a list's entries are
 * removed lazily: when a {@code checkAndComplete} walks the list and finds a quarter of it dead, and
 * by a purge of every list once more than {@code purgeInterval} of them are linked. The purge runs
 * on the purgatory's reaper thread ({@code <name>-purge-reaper}), which looks at the count at least
 * every 100 ms (Kafka's reaper: every 200 ms; more often while it finds purges
 * to do) and rests four times as long as each purge took before the next (so more than
 * {@code purgeInterval} tombstones may linger meanwhile), or, with the reaper disabled, on the
 * thread whose completion crossed the threshold. A position index removes its own tombstones
 * once they are half of it, checked after each completion and each advance, so it holds fewer
 * tombstones than live watches, or none.
 *
 * <h2>Shutdown</h2>
 * {@link #close()} expires every operation still pending, on the calling thread (each gets
 * {@code onComplete} then {@code onExpiration}), before it stops its threads; an operation
 * offered after {@code close()} is expired at once, as {@link Completion#CLOSED}, on the offering
 * thread, and the offer returns {@code true}: as for every offer, {@code true} says the operation
 * has been answered during the call (there is nothing to wait for), not that its condition held;
 * its {@link DelayedOperation#completion()} says how. {@link #isClosed()} tells whether
 * {@code close()} was called. No caller is left waiting.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. Lock order: an operation's lock, then a map bin, then a {@link WatchList}'s monitor.
 * {@code tryComplete} and {@code onComplete} run under their operation's lock and under no lock of
 * the purgatory's; {@code checkAndComplete} and {@code advance} take operation locks with
 * {@code tryLock} only, so they may be called from {@code tryComplete}, {@code onComplete} and
 * {@code onExpiration} of any operation, its own keys included: a walk skips the operation that its
 * thread is trying already (see {@link DelayedOperation#tryComplete()} for what each callback may
 * call). Callers must not hold, while calling
 * {@code checkAndComplete}, a lock that some {@code tryComplete} needs (KAFKA-8334).
 * {@code closed} is volatile; counters are {@link LongAdder}s. A walk of a list
 * ({@code checkAndComplete}, {@code advance}) adds its completions to the counters once, when it
 * ends ({@link WalkTally}): while walks run, {@link #numDelayed()} and the metrics' {@code completed}
 * lag by the operations those walks have completed so far. An operation is counted completed or
 * expired before it stops counting as delayed, so a reader that sees {@link #numDelayed()} fall
 * sees it counted (never in neither count).
 *
 * <p>Counts of what the purgatory holds ({@link #watched()}, {@link #numDelayed()}) are {@code long},
 * as are the {@link PurgatoryMetrics}; a call's own result (how many operations {@code advance},
 * {@code checkAndComplete} or {@code cancelForKey} completed) is an {@code int}, bounded by one
 * list's length.
 *
 * @param <T> the operations it holds
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> extends OperationHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    static {
        OperationDoors.register(); // the operation state's doors in the internal package, for the timer and purgatory-kafka
    }
    /** The key under which operations offered with no keys are kept, so that close() finds them. */
    private static final Object NO_KEY = new Object() {
        @Override
        public String toString() {
            return "<no key>";
        }
    };

    private final String name;
    private final Timer timer;
    private final boolean ownsTimer;
    private final int purgeInterval;
    private final ConcurrentHashMap<Object, WatchList> watchLists = new ConcurrentHashMap<>();
    private final WatchCounts counts = new WatchCounts();
    private final LongAdder delayed = new LongAdder();
    private final PurgatoryMetrics metrics;
    private final AtomicBoolean purging = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final @Nullable PurgeReaper purgeReaper;
    private final @Nullable JmxRegistration jmx;
    private volatile boolean closed;

    /**
     * A purgatory with its own {@link SystemTimer}, purgeInterval 1000 and its reaper thread.
     *
     * @param name names the purgatory, its threads, its JMX bean and its metrics
     * @throws NullPointerException if name is null
     */
    public DelayedOperationPurgatory(String name) {
        this(builder(name));
    }

    private DelayedOperationPurgatory(Builder<?> builder) {
        this.name = builder.name;
        Timer given = builder.timer;
        this.ownsTimer = given == null;
        this.timer = given == null ? new SystemTimer(name) : given;
        this.purgeInterval = builder.purgeInterval;
        this.metrics = new PurgatoryMetrics(name, this::watched, this::numDelayed);
        this.jmx = JmxRegistration.register(name, metrics);
        if (builder.reaperEnabled) {
            purgeReaper = PurgeReaper.start(name, () -> counts.tombstones.sum() > purgeInterval, this::purge);
        } else {
            purgeReaper = null;
        }
    }

    /**
     * A builder of a purgatory named {@code name}: where to set its timer (a {@code MockTimer} in
     * tests), its purge interval and whether it runs a purge reaper thread. The entry point:
     * {@code DelayedOperationPurgatory<MyOp> p = DelayedOperationPurgatory.builder("produce").build()}.
     *
     * @param name names the purgatory, its threads, its JMX bean and its metrics
     * @param <T> the operations the purgatory will hold (inferred from the assignment of {@link Builder#build()})
     * @return a builder with the defaults
     * @throws NullPointerException if name is null
     */
    public static <T extends DelayedOperation> Builder<T> builder(String name) {
        return new Builder<>(name);
    }

    /**
     * A purgatory of operations that carry the operation state without being
     * {@link DelayedOperation}s (Kafka's, through the {@code purgatory-kafka} bridge), offered through
     * {@link #offerState}; package-private, so that the public type keeps its bound to
     * {@code DelayedOperation}, and its methods that take an operation take only those.
     */
    static DelayedOperationPurgatory<?> ofStates(String name, Timer timer, int purgeInterval, boolean reaperEnabled) {
        return new Builder<>(name).timer(timer).purgeInterval(purgeInterval).reaperEnabled(reaperEnabled).build();
    }

    /**
     * Tries the operation; if it cannot complete, watches every key, tries again, and schedules its
     * expiry. Keys are compared with {@code equals}; an empty collection means the operation only
     * waits for its expiry (or {@code forceComplete}).
     *
     * <p>An exception from {@code tryComplete}, on either try, counts as {@code false}: the operation
     * is watched and its expiry scheduled all the same, and the exception is rethrown at the end of
     * the call (the first one; a later one is suppressed in it). So the operation is in the purgatory
     * and will complete or expire, whatever its {@code tryComplete} does.
     *
     * @param operation the operation, never offered before
     * @param watchKeys the keys whose {@link #checkAndComplete} tries it; empty for none
     * @return true if the operation was answered during this call, so that there is nothing to wait
     *     for: its {@code tryComplete} completed it here ({@link Completion#COMPLETED}), or the
     *     purgatory was closed (or closed during the call) and the operation was expired
     *     ({@link Completion#CLOSED}): {@code true} does not mean that the condition held, read
     *     {@link DelayedOperation#completion()} for that; false if it was completed before the call,
     *     or if it was left waiting (another thread may complete it at any moment after)
     * @throws IllegalStateException if the operation was offered before (to any purgatory)
     * @throws NullPointerException if the operation, the collection or a key is null
     */
    public boolean tryCompleteElseWatch(T operation, Collection<?> watchKeys) {
        return offerState(operation, watchKeys);
    }

    /**
     * {@link #tryCompleteElseWatch} for any operation state: a {@code DelayedOperation}, or one of
     * the {@code purgatory-kafka} bridge's.
     */
    boolean offerState(OperationState operation, Collection<?> watchKeys) {
        Objects.requireNonNull(operation, "operation");
        List<?> keys = keyList(watchKeys);
        for (int i = 0, n = keys.size(); i < n; i++) {
            Objects.requireNonNull(keys.get(i), "watch key");
        }
        return offer(operation, keys.isEmpty() ? List.of(NO_KEY) : keys, null);
    }

    /**
     * The keys as a list that is indexed without an iterator: the collection itself when it is a
     * {@link RandomAccess} list (what callers pass: {@code List.of}, an {@code ArrayList}), so that
     * parking allocates nothing but the operation's watches; else a copy.
     */
    private static List<?> keyList(Collection<?> keys) {
        if (keys instanceof List<?> list && keys instanceof RandomAccess) {
            return list;
        }
        return Arrays.asList(keys.toArray());
    }

    /**
     * Tries the operation; if it cannot complete, watches key until key's position reaches
     * {@code position} (see {@link #advance}), tries again, and schedules its expiry. Use this form
     * when the operation waits for a number that only grows (an offset, a high watermark): an
     * advance then tries only the operations it may complete. A distinct name from the keys form,
     * {@link #tryCompleteElseWatch}, so that neither can be called for the other.
     *
     * @param operation the operation, never offered before
     * @param key the one key it watches
     * @param position the position of key that it waits for
     * @return true if the operation was answered during this call (see {@link #tryCompleteElseWatch})
     * @throws IllegalStateException if the operation was offered before (to any purgatory)
     * @throws NullPointerException if the operation or the key is null
     * @throws IllegalArgumentException if the key is a collection (several keys, each at its own
     *     position, go in a map to {@link #tryCompleteElseWatchPositions})
     */
    public boolean tryCompleteElseWatchPosition(T operation, Object key, long position) {
        Objects.requireNonNull(operation, "operation");
        return offer(operation, null, Map.of(positionKey(key, "key"), position));
    }

    /**
     * Tries the operation; if it cannot complete, watches each key of {@code positions} until that
     * key's position reaches the value mapped to it (a produce to several partitions waits for each
     * partition's high watermark to pass its own offset), tries again, and schedules its expiry.
     *
     * @param operation the operation, never offered before
     * @param positions each key it watches, mapped to the position of that key it waits for
     * @return true if the operation was answered during this call (see {@link #tryCompleteElseWatch})
     * @throws IllegalStateException if the operation was offered before (to any purgatory)
     * @throws NullPointerException if the operation, the map, a key or a position is null
     * @throws IllegalArgumentException if the map is empty or a key is a collection
     */
    public boolean tryCompleteElseWatchPositions(T operation, Map<?, Long> positions) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(positions, "positions");
        if (positions.isEmpty()) {
            throw new IllegalArgumentException("positions must map at least one key to a position");
        }
        for (Map.Entry<?, Long> entry : positions.entrySet()) {
            positionKey(entry.getKey(), "positions: a key");
            Objects.requireNonNull(entry.getValue(), () -> "positions: the position of key " + entry.getKey());
        }
        return offer(operation, null, positions);
    }

    /**
     * Key's position is now {@code position}: tries the operations watching key at a position at or
     * below it, lowest position first, and no others. Each one tried stops waiting for a position
     * on key, whether it completes or not: if it does not (it still waits on another key, say),
     * {@link #checkAndComplete} still tries it and later advances on key do not. Costs O(1) when no
     * operation on key waits at or below {@code position}, and O(log n) per operation tried (O(1)
     * when positions were watched in increasing order), with n the operations watching key.
     *
     * <p>Every due operation is tried, each under its own lock taken with {@code tryLock}. A
     * {@code tryComplete} that throws counts as {@code false} (its operation keeps waiting, on
     * {@code checkAndComplete} and its expiry); the first exception is rethrown once every due
     * operation was tried, as {@link #checkAndComplete} does.
     *
     * @return how many operations this call completed
     * @param key the key whose position grew
     * @param position the key's position now; operations waiting at or below it are tried
     * @throws NullPointerException if the key is null
     */
    public int advance(Object key, long position) {
        WatchList list = watchLists.get(Objects.requireNonNull(key, "key"));
        if (list == null) {
            return 0;
        }
        Attempts attempts = new Attempts();
        WalkTally tally = startWalk();
        try {
            for (OperationState op : list.takeDue(position)) {
                attempts.retry(op);
            }
        } finally {
            endWalk(tally);
        }
        return attempts.result();
    }

    /**
     * The offer behind every {@code tryCompleteElseWatch}: the operation watches {@code keys}, or,
     * when that is null, each key of {@code positions} at its position.
     */
    private boolean offer(OperationState operation, @Nullable List<?> keys, @Nullable Map<?, Long> positions) {
        Throwable failure = null; // of tryComplete: kept to rethrow at the end (no Attempts: parking allocates nothing)
        boolean offeredAfterClose;
        boolean completedNow = false;
        boolean parked = false;
        OperationStates.lock(operation);
        try {
            if (!Operations.offerTo(operation, this)) {
                return false;
            }
            offeredAfterClose = closed;
            if (!offeredAfterClose) {
                try {
                    if (Operations.tryComplete(operation)) {
                        return true; // nothing linked
                    }
                } catch (RuntimeException | Error e) {
                    failure = e; // counts as false
                }
                if (!Operations.isDone(operation)) { // it is when tryComplete completed it and then threw
                    if (keys != null) {
                        watch(operation, keys);
                    } else {
                        assert positions != null; // one of the two is given
                        watchAt(operation, positions);
                    }
                    try {
                        completedNow = Operations.tryComplete(operation);
                    } catch (RuntimeException | Error e) {
                        failure = Attempts.first(failure, e); // counts as false
                    }
                    parked = !Operations.isDone(operation);
                }
            }
        } finally {
            OperationStates.unlock(operation);
        }
        if (offeredAfterClose) {
            Operations.expire(operation, Completion.CLOSED); // outside the lock: onExpiration runs without it
            return true;
        }
        if (!completedNow && parked) {
            try {
                completedNow = Operations.retryIfPending(operation); // a retry another thread asked for while this one held the lock
            } catch (RuntimeException | Error e) {
                failure = Attempts.first(failure, e);
            }
        }
        if (closed) {
            // close() may have swept the lists before this operation was linked, and lists it linked
            // into after the sweep are visited by nobody else: take them, answering what they hold
            // (this operation too, unless it completed)
            for (Object key : keys != null ? keys : Objects.requireNonNull(positions).keySet()) {
                takeList(key, this::expireOnClose);
            }
            Operations.expire(operation, Completion.CLOSED);
            Attempts.rethrow(failure);
            return true;
        }
        if (!completedNow && parked) {
            schedule(operation);
        }
        Attempts.rethrow(failure);
        return completedNow;
    }

    /** Adds the operation's expiry (the operation itself, as a timer node) to the timer, at its deadline. */
    private void schedule(OperationState operation) {
        try {
            Operations.scheduleExpiry(operation, timer, Operations.delayMs(operation)); // a no-op if it completed meanwhile: completion cancels it
        } catch (IllegalStateException timerClosed) {
            // closed by close() after its sweep (which found this operation), or by its owner before this
            // purgatory: either way nothing will expire the operation now but this thread
            Operations.expire(operation, Completion.CLOSED);
            if (!closed) {
                throw timerClosed;
            }
        }
    }

    /**
     * Retries the operations watching key, with or without a position, each under its own lock taken
     * with {@code tryLock}. A {@code tryComplete} that throws counts as {@code false} (its operation
     * keeps waiting); the first exception is rethrown once every operation was tried, as
     * {@link #advance} does.
     *
     * @return how many operations this call completed
     * @param key the key whose watchers to try
     */
    public int checkAndComplete(Object key) {
        WatchList list = watchLists.get(Objects.requireNonNull(key, "key"));
        if (list == null) {
            return 0;
        }
        WalkTally tally = startWalk();
        try {
            return list.tryCompleteWatched();
        } finally {
            endWalk(tally);
            if (list.looksEmpty()) {
                unmapIfEmpty(key, list);
            }
        }
    }

    /**
     * Starts tallying a walk's completions on this thread ({@link WalkTally}), if the purgatory has
     * a reaper (without one, a completion past the threshold must purge at once, so counts stay per
     * completion) and no walk runs here yet.
     *
     * @return the tally to end with {@link #endWalk}, or null if this walk does not tally
     */
    private @Nullable WalkTally startWalk() {
        if (purgeReaper == null) {
            return null;
        }
        WalkTally tally = WalkTally.ofThread();
        return tally.start(this) ? tally : null;
    }

    /** Adds a walk's tally to the counters, once for all its completions. */
    private void endWalk(@Nullable WalkTally tally) {
        if (tally == null) {
            return;
        }
        tally.end();
        if (tally.completed != 0) {
            metrics.onCompleted(tally.completed); // before they stop counting as delayed, as in completed()
        }
        if (tally.unwatched != 0) {
            delayed.add(-tally.unwatched);
            counts.tombstones.add(tally.tombstones);
        }
        tally.clear();
    }

    /**
     * Watches linked in all lists, one per operation and key, including tombstones of completed
     * operations that have not been removed yet: at most about {@code purgeInterval} among the
     * lists' entries, and in each position index fewer than its live watches, or none.
     *
     * @return the watch-list entries, tombstones included
     */
    public long watched() {
        return counts.linked.sum();
    }

    /**
     * Operations watched and not yet completed or expired.
     *
     * @return the operations still waiting
     */
    public long numDelayed() {
        return delayed.sum();
    }

    /**
     * Cancels every operation watching key (with or without a position): each is completed as
     * {@link Completion#CANCELLED}, with {@code reason} for its {@code onComplete} to read
     * ({@link DelayedOperation#cancelReason()}: the error to answer with, say, when a topic is
     * deleted), leaves every other key's list, and never expires. The key's list goes with them. An
     * operation that completed on another path meanwhile (its expiry, say) keeps that completion. If
     * some {@code onComplete} throws, the others are still cancelled and the first exception is
     * rethrown after. An operation offered on key while this call runs may start a new list and stay:
     * stop offering on the key first (a deleted topic refuses new requests, then cancels the parked
     * ones).
     *
     * @param reason what {@code cancelReason()} returns to each cancelled operation; may be null
     * @return how many operations this call completed
     * @param key the key whose watchers to cancel
     * @throws NullPointerException if the key is null
     */
    public int cancelForKey(Object key, @Nullable Object reason) {
        Attempts attempts = new Attempts();
        takeList(Objects.requireNonNull(key, "key"), op -> attempts.cancel(op, reason));
        return attempts.result();
    }

    /**
     * Takes every operation watching key off this purgatory <em>without completing it</em>: its
     * expiry is cancelled, its watches on every key become tombstones, it is no longer counted as
     * delayed, and it is returned to the caller, who must answer it. The key's list goes with them.
     * An operation that completed meanwhile, or whose expiry already fired, is left to that path and
     * not returned. Kafka's {@code cancelForKey} has these semantics; package-private, for the
     * {@code purgatory-kafka} bridge, since no public method may leave an operation unanswered (the
     * public form, {@link #cancelForKey}, completes them).
     *
     * @return the operations withdrawn, in the list's order
     */
    List<OperationState> withdrawForKey(Object key) {
        List<OperationState> withdrawn = new ArrayList<>();
        takeList(Objects.requireNonNull(key, "key"), op -> {
            if (withdraw(op)) {
                withdrawn.add(op);
            }
        });
        return withdrawn;
    }

    private boolean withdraw(OperationState op) {
        OperationStates.lock(op);
        try {
            if (Operations.isDone(op) || !Operations.cancelExpiry(op)) {
                return false; // completed, or its expiry has fired and will complete it
            }
            int released = Operations.unwatch(op);
            if (released >= 0) {
                unwatched(released);
            }
            return true;
        } finally {
            OperationStates.unlock(op);
        }
    }

    /**
     * Counters, gauges and the expiry lateness histogram of this purgatory.
     *
     * @return the metrics; the same object for the purgatory's life
     */
    public PurgatoryMetrics metrics() {
        return metrics;
    }

    /**
     * The name given to the builder: it names the purgatory's threads, its JMX bean and its metrics.
     *
     * @return the purgatory's name
     */
    @Override
    public String name() {
        return name;
    }

    /**
     * True once {@link #close()} has been called (it may still be expiring the pending operations):
     * from then on every offer expires its operation at once, as {@link Completion#CLOSED}.
     *
     * @return whether the purgatory is closed
     */
    public boolean isClosed() {
        return closed;
    }

    /** The timer that expires this purgatory's operations. */
    @Override
    Timer timer() {
        return timer;
    }

    /** How many keys have a watch list: a key whose watches all went is unmapped. Visible for testing. */
    int watchedKeys() {
        return watchLists.size();
    }

    /**
     * Expires every pending operation on this thread ({@code onComplete}, then
     * {@code onExpiration}), then stops the purge reaper and, if the purgatory made it, the timer.
     * Operations offered from now on are expired at once. Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        for (Object key : watchLists.keySet()) {
            takeList(key, this::expireOnClose);
        }
        if (purgeReaper != null) {
            purgeReaper.stop();
        }
        if (jmx != null) {
            jmx.unregister();
        }
        if (ownsTimer) {
            timer.close();
        }
    }

    @Override
    public String toString() {
        return "DelayedOperationPurgatory[" + name + ", delayed " + numDelayed() + ", watched " + watched() + "]";
    }

    // --- called by Operations, under the operation's lock ---

    /** Unlinks and counts a completing operation, before its {@code onComplete} runs. */
    @Override
    void completed(OperationState op, Completion how) {
        int released = Operations.unwatch(op);
        boolean counted = how == Completion.COMPLETED || how == Completion.CANCELLED;
        if (!counted) {
            expired(op, how);
        }
        if (purgeReaper != null) {
            WalkTally tally = WalkTally.ofThread();
            if (tally.isWalking(this)) { // counted once when the walk ends
                if (released >= 0) {
                    tally.unwatched++;
                    tally.tombstones += released;
                }
                if (counted) {
                    tally.completed++;
                }
                return;
            }
        }
        if (counted) {
            metrics.onCompleted(1); // before it stops counting as delayed, as an expired one is: never in neither count
        }
        if (released >= 0) {
            unwatched(released);
        }
    }

    private void expired(OperationState op, Completion how) {
        metrics.onExpired();
        if (how == Completion.EXPIRED) {
            metrics.expiryLateness().record(timer.nowMs() - Operations.deadlineMs(op));
        }
    }

    // --- internals ---

    /** Links the operation into its first key's list itself, and a {@link Watch} into each other key's. */
    private void watch(OperationState op, List<?> keys) {
        assert OperationStates.isHeldByCurrentThread(op);
        link(keys.get(0), op, 0);
        Watch head = null;
        int n = keys.size();
        for (int i = 1; i < n; i++) {
            head = new Watch(op, head);
            link(keys.get(i), head, 0);
        }
        watching(op, head, n);
    }

    /** Links a {@link PositionWatch} into each key's list, at the key's position. */
    private void watchAt(OperationState op, Map<?, Long> positions) {
        assert OperationStates.isHeldByCurrentThread(op);
        Watch head = null;
        for (Map.Entry<?, Long> entry : positions.entrySet()) {
            head = new PositionWatch(op, head);
            link(entry.getKey(), head, entry.getValue());
        }
        watching(op, head, positions.size());
    }

    /**
     * The operation now watches its keys: counts it delayed and its {@code linked} watches, once for
     * all keys. Under its lock, before it can complete (and so before any of its watches can be
     * unlinked and uncounted).
     */
    private void watching(OperationState op, @Nullable Watch watches, int linked) {
        Operations.watchOthers(op, watches);
        counts.linked.add(linked);
        delayed.increment();
    }

    /** Links an entry into key's list (see {@link WatchList#tryAdd}), making the list if needed. */
    private void link(Object key, Object entry, long position) {
        WatchList list = watchLists.get(key);
        if (list != null && list.tryAdd(entry, position)) {
            return;
        }
        watchLists.compute(key, (k, current) -> {
            WatchList target = current;
            if (target == null || !target.tryAdd(entry, position)) {
                target = new WatchList(counts);
                target.tryAdd(entry, position);
            }
            return target;
        });
    }


    /**
     * An operation stopped watching, leaving {@code tombstones}: counts both; without a reaper,
     * purges here once the tombstones are past the threshold (a reaper looks at the count itself).
     */
    private void unwatched(int tombstones) {
        delayed.decrement();
        counts.tombstones.add(tombstones);
        if (purgeReaper == null && counts.tombstones.sum() > purgeInterval) {
            purge();
        }
    }

    private void expireOnClose(OperationState op) {
        try {
            Operations.expire(op, Completion.CLOSED);
        } catch (RuntimeException | Error e) {
            LOG.error("Purgatory {}: expiring {} on close threw", name, op, e);
        }
    }

    /**
     * Unmaps key's list and detaches it, hands each operation still in it to {@code action} (which
     * completes or cancels it, so that its watches become tombstones), then counts the list's
     * entries unlinked. Nothing if key has no list.
     */
    private void takeList(Object key, Consumer<OperationState> action) {
        WatchList list = watchLists.remove(key);
        if (list == null) {
            return;
        }
        Object[] entries = list.detach();
        for (Object entry : entries) {
            OperationState op = WatchList.operationOf(entry);
            if (op != null) {
                action.accept(op);
            }
        }
        counts.unlinked(entries.length);
    }

    /**
     * A key of the position forms: one key, not several in a collection (those go in a map).
     *
     * @param argument names the key in the exception if it is null
     */
    private static Object positionKey(Object key, String argument) {
        if (Objects.requireNonNull(key, argument) instanceof Collection) {
            throw new IllegalArgumentException("a position watch takes one key, not a collection: " + key
                    + " (to watch several keys, each at its own position, use tryCompleteElseWatchPositions;"
                    + " to watch keys without positions, tryCompleteElseWatch)");
        }
        return key;
    }

    private void unmapIfEmpty(Object key, WatchList list) {
        watchLists.computeIfPresent(key, (k, current) -> current == list && list.detachIfEmpty() ? null : current);
    }

    /** Removes every tombstone from every list, and unmaps the lists left empty. */
    private void purge() {
        if (!purging.compareAndSet(false, true)) {
            return; // another thread is purging
        }
        try {
            long removed = 0;
            for (var entry : watchLists.entrySet()) {
                WatchList list = entry.getValue();
                removed += list.dropTombstones();
                if (list.isEmpty()) {
                    unmapIfEmpty(entry.getKey(), list);
                }
            }
            counts.unlinked(removed);
            metrics.onPurged(removed);
            LOG.debug("Purgatory {}: purged {} completed watches", name, removed);
        } finally {
            purging.set(false);
        }
    }

    /**
     * Builds a purgatory. Defaults: its own {@link SystemTimer} (closed with the purgatory),
     * purgeInterval 1000, reaper enabled. A timer given here is not closed by the purgatory.
     */
    public static final class Builder<T extends DelayedOperation> {
        private final String name;
        private @Nullable Timer timer;
        private int purgeInterval = 1000;
        private boolean reaperEnabled = true;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /**
         * The timer that expires operations, for example a {@code MockTimer} in tests. It stays the
         * caller's: the purgatory does not close it, so that one timer can serve several
         * purgatories; close it after the purgatories that use it.
         *
         * @param timer the timer; several purgatories may share it
         * @return this builder
         * @throws NullPointerException if timer is null
         */
        public Builder<T> timer(Timer timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Purge the watch lists once more than this many completed watches linger; at least 0.
         *
         * @param purgeInterval how many tombstones may linger before a purge; 0 purges after every completion
         * @return this builder
         * @throws IllegalArgumentException if purgeInterval is negative
         */
        public Builder<T> purgeInterval(int purgeInterval) {
            if (purgeInterval < 0) {
                throw new IllegalArgumentException("purgeInterval must not be negative: " + purgeInterval);
            }
            this.purgeInterval = purgeInterval;
            return this;
        }

        /**
         * Whether purges run on the purgatory's own reaper thread (true, the default) or on the
         * thread that crosses the threshold (false: the purgatory then starts no thread of its own).
         *
         * @param reaperEnabled true for a reaper thread, false for none
         * @return this builder
         */
        public Builder<T> reaperEnabled(boolean reaperEnabled) {
            this.reaperEnabled = reaperEnabled;
            return this;
        }

        /**
         * The purgatory, typed by the assignment it goes into: {@code DelayedOperationPurgatory<MyOp> p =
         * DelayedOperationPurgatory.builder("produce").timer(timer).build()} needs no type witness.
         *
         * @param <U> the operations the purgatory holds, inferred from the assignment
         * @return a new, open purgatory; close it when done with it
         */
        public <U extends T> DelayedOperationPurgatory<U> build() {
            return new DelayedOperationPurgatory<>(this);
        }
    }
}
