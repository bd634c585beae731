package io.purgatory;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races on the future and await forms of {@link Waiters}: waits offered while positions advance,
 * callers cancel futures, keys are cancelled, the timer expires waits, and (in half the rounds) the
 * waiters close, all at once on several threads lined up by a barrier. Each wait must be answered
 * exactly once (one callback; the purgatory counts one completion or expiry per wait) with an
 * outcome that the events justify, and at quiescence nothing is left: no wait pending, no watch
 * linked, no task in the timer. Work is bounded by counts; seeds are in the failure messages.
 */
@Tag("stress")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WaitersStressTest {

    private static final int ROUNDS = 40;
    private static final int WAITS = 2_000;
    private static final int KEYS = 4;
    private static final int MAX_POSITION = 200;
    private static final int MAX_TIMEOUT_MS = 50;

    private final ExecutorService threads = Executors.newFixedThreadPool(5);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void futuresRaceCancelAdvanceExpiryAndClose() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            new FutureRound(System.nanoTime(), round % 2 == 0).run();
        }
    }

    @Test
    void awaitsRaceInterruptAdvanceExpiryAndClose() throws Exception {
        for (int round = 0; round < ROUNDS / 4; round++) {
            new AwaitRound(System.nanoTime(), round % 2 == 0).run();
        }
    }

    /** State shared by the threads of one round: the timer, the positions, the waiters. */
    private abstract class Round {
        final long seed;
        final boolean closeMidway;
        protected final MockTimer timer = new MockTimer();
        protected final AtomicLongArray positions = new AtomicLongArray(KEYS);
        protected final Waiters<Integer> waiters = new Waiters<>(
                DelayedOperationPurgatory.builder("WaitersStressTest").timer(timer).purgeInterval(8).reaperEnabled(false),
                positions::get);
        /** Set before close() is called. */
        volatile boolean closing;
        /** Per key: set before cancel(key) is called. */
        protected final AtomicReferenceArray<Boolean> keyCancelled = new AtomicReferenceArray<>(KEYS);
        protected final AtomicInteger wrong = new AtomicInteger();
        volatile String firstWrong;

        Round(long seed, boolean closeMidway) {
            this.seed = seed;
            this.closeMidway = closeMidway;
        }

        /** Checks one outcome against what happened before it was answered. */
        void check(int key, long position, long offeredAtMs, long timeoutMs, WaitOutcome outcome) {
            boolean justified = switch (outcome) {
                case REACHED -> positions.get(key) >= position;
                case TIMED_OUT -> timer.nowMs() >= offeredAtMs + timeoutMs;
                case CLOSED -> closing;
                case CANCELLED -> Boolean.TRUE.equals(keyCancelled.get(key));
            };
            if (!justified) {
                wrong.incrementAndGet();
                firstWrong = outcome + " for key " + key + " at " + position + " (now " + positions.get(key) + "), offered at "
                        + offeredAtMs + " ms with timeout " + timeoutMs + " ms, timer at " + timer.nowMs();
            }
        }

        void advancer(SplittableRandom random, int steps) {
            for (int i = 0; i < steps; i++) {
                int key = random.nextInt(KEYS);
                positions.getAndAdd(key, random.nextInt(1, 4));
                waiters.advance(key);
            }
        }

        void ticker(int steps) {
            for (int i = 0; i < steps; i++) {
                timer.advance(1);
            }
        }

        void closeOrCancelKey(SplittableRandom random) {
            int key = random.nextInt(KEYS);
            keyCancelled.set(key, true);
            waiters.cancel(key);
            if (closeMidway) {
                closing = true;
                waiters.close();
            }
        }

        /** Lets every wait end, then checks that nothing is left. */
        void quiesce(String context) {
            for (int key = 0; key < KEYS; key++) {
                positions.set(key, Long.MAX_VALUE);
                waiters.advance(key);
            }
            timer.advance(MAX_TIMEOUT_MS + 1);
            await().untilAsserted(() -> {
                assertEquals(0, waiters.metrics().delayed(), context + ": waits pending");
                assertEquals(0, timer.size(), context + ": timer tasks");
            });
            waiters.close();
            assertEquals(0, wrong.get(), () -> context + ": " + wrong.get() + " unjustified outcomes, e.g. " + firstWrong);
            timer.close();
        }
    }

    /** Futures: one thread offers, one advances, one ticks the timer, one cancels futures and a key (and closes). */
    private final class FutureRound extends Round {
        private final AtomicReferenceArray<CompletableFuture<WaitOutcome>> futures = new AtomicReferenceArray<>(WAITS);
        private final AtomicInteger[] answers = new AtomicInteger[WAITS];
        private final boolean[] cancelledByCaller = new boolean[WAITS];

        FutureRound(long seed, boolean closeMidway) {
            super(seed, closeMidway);
            for (int i = 0; i < WAITS; i++) {
                answers[i] = new AtomicInteger();
            }
        }

        void run() throws Exception {
            String context = "seed " + seed + (closeMidway ? ", closing midway" : "");
            CyclicBarrier start = new CyclicBarrier(4);
            List<Future<?>> running = new ArrayList<>();
            running.add(threads.submit(() -> lineUp(start, () -> offer(new SplittableRandom(seed)))));
            running.add(threads.submit(() -> lineUp(start, () -> advancer(new SplittableRandom(seed + 1), WAITS))));
            running.add(threads.submit(() -> lineUp(start, () -> ticker(MAX_TIMEOUT_MS))));
            running.add(threads.submit(() -> lineUp(start, () -> cancel(new SplittableRandom(seed + 2)))));
            for (Future<?> thread : running) {
                thread.get();
            }
            quiesce(context);
            int offered = 0;
            for (int i = 0; i < WAITS; i++) {
                CompletableFuture<WaitOutcome> future = futures.get(i);
                if (future == null) {
                    continue; // offered after close began: none; see offer
                }
                offered++;
                int index = i;
                assertTrue(future.isDone(), () -> context + ": wait " + index + " not answered");
                assertEquals(1, answers[i].get(), () -> context + ": callbacks of wait " + index);
                assertEquals(cancelledByCaller[i], future.isCancelled(), () -> context + ": wait " + index + " cancelled");
            }
            PurgatoryMetrics metrics = waiters.metrics();
            assertEquals(offered, metrics.completed() + metrics.expired(), context + ": completions counted, one per wait");
            assertEquals(0, metrics.watched(), context + ": watches linked");
        }

        private void offer(SplittableRandom random) {
            for (int i = 0; i < WAITS; i++) {
                int key = random.nextInt(KEYS);
                long position = random.nextInt(1, MAX_POSITION);
                long timeoutMs = random.nextInt(1, MAX_TIMEOUT_MS);
                long offeredAt = timer.nowMs();
                CompletableFuture<WaitOutcome> future = waiters.waitFor(key, position, Duration.ofMillis(timeoutMs));
                int index = i;
                future.whenComplete((outcome, cancelled) -> {
                    answers[index].incrementAndGet();
                    if (outcome != null) {
                        check(key, position, offeredAt, timeoutMs, outcome);
                    }
                });
                futures.set(i, future);
            }
        }

        private void cancel(SplittableRandom random) {
            for (int i = 0; i < WAITS; i++) {
                int index = random.nextInt(WAITS);
                CompletableFuture<WaitOutcome> future = futures.get(index);
                if (future != null && !future.isDone() && future.cancel(false)) {
                    cancelledByCaller[index] = true;
                }
                if (i == WAITS / 2) {
                    closeOrCancelKey(random);
                }
            }
        }
    }

    /** Awaits: two threads await in a loop, one advances, one ticks the timer and interrupts the awaiting threads, one cancels a key (and closes). */
    private final class AwaitRound extends Round {
        private final LongAdder calls = new LongAdder();
        private final LongAdder interrupted = new LongAdder();
        private final AtomicLong answered = new AtomicLong();

        AwaitRound(long seed, boolean closeMidway) {
            super(seed, closeMidway);
        }

        void run() throws Exception {
            String context = "seed " + seed + (closeMidway ? ", closing midway" : "");
            CyclicBarrier start = new CyclicBarrier(5);
            List<Thread> awaiting = new ArrayList<>();
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long threadSeed = seed + 10 + t;
                running.add(threads.submit(() -> {
                    synchronized (awaiting) {
                        awaiting.add(Thread.currentThread());
                    }
                    lineUp(start, () -> awaitLoop(new SplittableRandom(threadSeed), WAITS / 10));
                }));
            }
            running.add(threads.submit(() -> lineUp(start, () -> advancer(new SplittableRandom(seed + 1), WAITS))));
            running.add(threads.submit(() -> lineUp(start, () -> tickAndInterrupt(awaiting))));
            running.add(threads.submit(() -> lineUp(start, () -> closeOrCancelKey(new SplittableRandom(seed + 2)))));
            for (Future<?> thread : running.subList(2, running.size())) {
                thread.get();
            }
            // the awaiting threads may still be parked on waits the timer has not reached: end them
            for (int key = 0; key < KEYS; key++) {
                positions.set(key, Long.MAX_VALUE);
                waiters.advance(key);
            }
            while (!running.get(0).isDone() || !running.get(1).isDone()) {
                timer.advance(MAX_TIMEOUT_MS);
                Thread.onSpinWait();
            }
            running.get(0).get();
            running.get(1).get();
            quiesce(context);
            assertEquals(calls.sum(), answered.get() + interrupted.sum(), context + ": every await returned or threw");
            PurgatoryMetrics metrics = waiters.metrics();
            // one completion per await that got as far as waiting: an await entered interrupted throws before
            long completions = metrics.completed() + metrics.expired();
            assertTrue(completions >= answered.get() && completions <= calls.sum(),
                    () -> context + ": " + completions + " completions for " + answered.get() + " answers of " + calls.sum() + " awaits");
            assertEquals(0, metrics.watched(), context + ": watches linked");
        }

        private void awaitLoop(SplittableRandom random, int waits) {
            for (int i = 0; i < waits; i++) {
                int key = random.nextInt(KEYS);
                long position = random.nextInt(1, MAX_POSITION);
                long timeoutMs = random.nextInt(1, MAX_TIMEOUT_MS);
                long offeredAt = timer.nowMs();
                calls.increment();
                try {
                    check(key, position, offeredAt, timeoutMs, waiters.await(key, position, Duration.ofMillis(timeoutMs)));
                    answered.incrementAndGet();
                } catch (InterruptedException e) {
                    interrupted.increment();
                }
            }
            Thread.interrupted(); // an interrupt that arrived after the last await
        }

        private void tickAndInterrupt(List<Thread> awaiting) {
            for (int i = 0; i < MAX_TIMEOUT_MS * 4; i++) {
                timer.advance(1);
                if (i % 7 == 0) {
                    synchronized (awaiting) {
                        awaiting.get(i % awaiting.size()).interrupt();
                    }
                }
            }
        }
    }

    private static void lineUp(CyclicBarrier start, Runnable work) {
        try {
            start.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        work.run();
    }
}
