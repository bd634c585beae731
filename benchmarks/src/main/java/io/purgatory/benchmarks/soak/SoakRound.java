package io.purgatory.benchmarks.soak;

import io.purgatory.DelayedOperationPurgatory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * One round of the soak against a fresh purgatory. Worker threads offer the round's operations, each
 * watching either plain keys ({@code tryCompleteElseWatch(op, keys)}, completed by
 * {@code checkAndComplete}) or a position ({@code tryCompleteElseWatch(op, key, position)}, completed
 * by {@code advance}); after each offer a worker moves a random key's position up by one and tells
 * the purgatory. Operations have short timeouts, and some wait for a position never reached, so the
 * timer expires a share while workers complete others. A canceller thread calls {@code cancelForKey}
 * on a random key now and then, which completes what it removes as cancelled. A racing
 * round is closed while the workers still offer (what they offer after that expires at once); a
 * draining round lets everything be answered first and records {@code numDelayed()} and
 * {@code watched()} before closing. Then every operation must have been answered exactly once and
 * both gauges must be 0.
 *
 * <p>Not thread-safe: one thread runs a round; inside it, operations are published to the checking
 * thread through an {@link AtomicReferenceArray} and the threads' joins.
 */
final class SoakRound {

    /** How long answers may still be in flight (timer or closing threads) before one counts as lost. */
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Polls of watched() without a fall after which it counts as settled (10 ms apart). */
    private static final int STEADY_POLLS = 20;
    /** Share of operations that wait for a position never reached. */
    private static final double NEVER_FRACTION = 0.1;
    /** Share of key-form operations that watch a second key. */
    private static final double TWO_KEYS_FRACTION = 0.25;

    private final SoakConfig config;
    private final int number;
    private final int size;
    private final boolean racingClose;
    private final int purgeInterval;
    private final SoakTally tally;

    /**
     * @param number the round's number, which seeds its draws and names its purgatory
     * @param size operations in the round
     * @param racingClose close while workers still offer, rather than after everything was answered
     */
    SoakRound(SoakConfig config, int number, int size, boolean racingClose, int purgeInterval, SoakTally tally) {
        this.config = config;
        this.number = number;
        this.size = size;
        this.racingClose = racingClose;
        this.purgeInterval = purgeInterval;
        this.tally = tally;
    }

    void run() {
        DelayedOperationPurgatory<SoakOperation> purgatory =
                DelayedOperationPurgatory.<SoakOperation>builder("soak-" + number).purgeInterval(purgeInterval).build();
        Keys keys = new Keys(config.keys());
        AtomicReferenceArray<SoakOperation> operations = new AtomicReferenceArray<>(size);
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        SplittableRandom random = new SplittableRandom(config.seed() * 31 + number);

        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < config.threads(); i++) {
            SplittableRandom own = random.split();
            workers.add(start("soak-worker-" + i, () -> offer(purgatory, keys, operations, next, own)));
        }
        SplittableRandom cancellerRandom = random.split();
        Thread canceller = start("soak-canceller", () -> cancel(purgatory, keys, stop, cancellerRandom));

        if (racingClose) {
            int closeAt = size / 4 + random.nextInt(size / 2 + 1);
            while (next.get() < closeAt && anyAlive(workers)) {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
            }
            purgatory.close();
            tally.offeredAfterClose(size - Math.min(size, next.get())); // taken after close() returned
            join(workers);
        } else {
            join(workers);
            stop.set(true);
            join(List.of(canceller));
            settle(operations);
            tally.beforeClose(purgeInterval, purgatory.numDelayed(), settledWatched(purgatory));
            purgatory.close();
        }
        stop.set(true);
        join(List.of(canceller));
        settle(operations);
        tally.afterClose(number, purgatory.numDelayed(), purgatory.watched());
        for (int i = 0; i < size; i++) {
            tally.check(number, i, operations.get(i));
        }
    }

    /** A worker: takes operation numbers until the round has them all. */
    private void offer(DelayedOperationPurgatory<SoakOperation> purgatory, Keys keys,
                       AtomicReferenceArray<SoakOperation> operations, AtomicInteger next, SplittableRandom random) {
        for (int i = next.getAndIncrement(); i < size; i = next.getAndIncrement()) {
            long timeoutMs = 1 + random.nextInt(config.maxTimeoutMs());
            boolean never = random.nextDouble() < NEVER_FRACTION;
            int key = random.nextInt(keys.count());
            AtomicLong position = keys.position(key);
            SoakOperation op = new SoakOperation(timeoutMs, position,
                    never ? SoakOperation.NEVER : position.get() + 1 + random.nextInt(3));
            operations.set(i, op);
            boolean positioned = random.nextBoolean();
            boolean twoKeys = random.nextDouble() < TWO_KEYS_FRACTION;
            int moved = random.nextInt(keys.count());
            try {
                if (positioned) {
                    purgatory.tryCompleteElseWatchPosition(op, keys.positionKey(key), op.target());
                } else if (twoKeys) {
                    purgatory.tryCompleteElseWatch(op, List.of(keys.plainKey(key), keys.plainKey((key + 1) % keys.count())));
                } else {
                    purgatory.tryCompleteElseWatch(op, List.of(keys.plainKey(key)));
                }
            } catch (RuntimeException e) {
                tally.threw("tryCompleteElseWatch", e, "round " + number + ", operation " + i + ", then: " + op.describe());
            }
            long reached = keys.position(moved).incrementAndGet();
            try {
                purgatory.advance(keys.positionKey(moved), reached);
                purgatory.checkAndComplete(keys.plainKey(moved));
            } catch (RuntimeException e) {
                tally.threw("advance or checkAndComplete", e, "round " + number);
            }
        }
    }

    /** The canceller: now and then cancels a random key's operations. */
    private void cancel(DelayedOperationPurgatory<SoakOperation> purgatory, Keys keys, AtomicBoolean stop,
                        SplittableRandom random) {
        while (!stop.get()) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(200)));
            int key = random.nextInt(keys.count());
            Object watchKey = random.nextBoolean() ? keys.positionKey(key) : keys.plainKey(key);
            try {
                tally.cancelCalled(purgatory.cancelForKey(watchKey, "soak"));
            } catch (RuntimeException e) {
                tally.threw("cancelForKey", e, "round " + number);
            }
        }
    }

    /** Waits, up to a bound, until every operation of the round has been answered. */
    private void settle(AtomicReferenceArray<SoakOperation> operations) {
        long deadline = System.nanoTime() + SETTLE_NANOS;
        for (int i = 0; i < size; i++) {
            SoakOperation op = operations.get(i);
            while (op != null && op.outcome() == null && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }

    /**
     * watched() once it is 0 or has not fallen for {@link #STEADY_POLLS} polls 10 ms apart: a purge
     * may still be running, or waiting for the reaper thread to be scheduled.
     */
    private static long settledWatched(DelayedOperationPurgatory<?> purgatory) {
        long watched = purgatory.watched();
        for (int steady = 0; watched > 0 && steady < STEADY_POLLS; ) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            long now = purgatory.watched();
            steady = now < watched ? 0 : steady + 1;
            watched = now;
        }
        return watched;
    }

    private static Thread start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static boolean anyAlive(List<Thread> threads) {
        return threads.stream().anyMatch(Thread::isAlive);
    }

    private static void join(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining " + thread.getName(), e);
            }
        }
    }

    /**
     * The round's keys: for each number a plain key (checkAndComplete) and a position key (advance),
     * sharing one position counter, so that the two forms do not mix on one watch list.
     * Thread-safe: the arrays are filled before the workers start and never change; positions are atomics.
     */
    private static final class Keys {
        private final AtomicLong[] positions;
        private final Object[] plain;
        private final Object[] positioned;

        Keys(int count) {
            positions = new AtomicLong[count];
            plain = new Object[count];
            positioned = new Object[count];
            for (int i = 0; i < count; i++) {
                positions[i] = new AtomicLong();
                plain[i] = "key-" + i;
                positioned[i] = "position-" + i;
            }
        }

        int count() {
            return positions.length;
        }

        AtomicLong position(int key) {
            return positions[key];
        }

        Object plainKey(int key) {
            return plain[key];
        }

        Object positionKey(int key) {
            return positioned[key];
        }
    }
}
