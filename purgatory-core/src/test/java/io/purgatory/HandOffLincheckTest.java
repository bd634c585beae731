package io.purgatory;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.jmxIgnored;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.parksInEarnest;
import static io.purgatory.timer.ModelChecking.scenario;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A {@link HandOff} on a {@link MockTimer}, model-checked: two threads begin takes, offer items,
 * cancel takes, move the timer (timing takes out) and close the hand-off, in every interleaving of
 * small scenarios.
 *
 * <p>Takes 0 and 1 wait on key {@code k}, take 2 on {@code j} then {@code k}. Checked at quiescence
 * ({@link Scenario#validate}): every item offered is in exactly one TAKEN answer or still queued (none
 * lost, none given twice); no take still waits on a key that has an item queued (no lost wake-up);
 * of two takes that took from {@code k}, the one that began waiting first (its {@code take} returned
 * before the other's began) took the item offered first (its {@code offer} returned before the
 * other's began); then, the timer moved past every deadline, every take has its answer.
 *
 * <p>The broken variant offers items to waiters without taking the waiter's lock
 * ({@link #UNLOCKED}): it checks that the waiter has not completed, then takes the item and calls
 * {@code forceComplete}; a timeout that completes the waiter between the two makes
 * {@code forceComplete} lose, and the item, taken from the queue, is lost. The same validation must
 * report it.
 */
@Tag("lincheck")
class HandOffLincheckTest {

    private static final long DELAY_MS = 10;
    private static final List<List<String>> KEYS = List.of(List.of("k"), List.of("k"), List.of("j", "k"));

    /** Offers an item to a waiter without its lock: a completed waiter is skipped, but one may complete between the check and the take. */
    static final HandOffWaiter.Trial UNLOCKED = (waiter, lane) -> waiter.isCompleted() ? HandOffWaiter.Served.DONE
            : waiter.takeFrom(lane) ? HandOffWaiter.Served.TAKEN : HandOffWaiter.Served.NOTHING;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    /** When an operation began and ended, on a clock the scenario's operations share. */
    record Span(long began, long ended) {
        boolean before(Span other) {
            return ended < other.began;
        }
    }

    @Param(name = "take", gen = IntGen.class, conf = "0:2")
    @Param(name = "key", gen = IntGen.class, conf = "0:1")
    public abstract static class Scenario {
        /** More offers than a scenario makes: 2 threads of 3 operations, one before and one after. */
        private static final int MAX_ITEMS = 8;

        private final MockTimer timer = new MockTimer();
        private final HandOff<String, Integer> handOff;
        private final AtomicLong clock = new AtomicLong();
        private final AtomicInteger items = new AtomicInteger();
        private final AtomicReferenceArray<CompletableFuture<Handed<String, Integer>>> takes = new AtomicReferenceArray<>(3);
        /** When each take's {@code take} call began and returned; when each item's {@code offer} call did. */
        private final AtomicReferenceArray<Span> takeSpans = new AtomicReferenceArray<>(3);
        private final AtomicReferenceArray<Span> offerSpans = new AtomicReferenceArray<>(MAX_ITEMS);
        private final AtomicIntegerArray claimed = new AtomicIntegerArray(3);
        /** The key each item was offered to, by its number: 'k' or 'j'. */
        private final AtomicIntegerArray offeredTo = new AtomicIntegerArray(MAX_ITEMS);

        Scenario(HandOffWaiter.Trial trial) {
            this.handOff = HandOff.<String, Integer>builder("lincheck-handoff-" + INSTANCES.incrementAndGet())
                    .timer(timer).withoutReaper().trial(trial).build();
        }

        @Operation
        public void take(@Param(name = "take") int i) {
            if (!claimed.compareAndSet(i, 0, 1)) {
                return;
            }
            long began = clock.incrementAndGet();
            takes.set(i, handOff.take(KEYS.get(i), Duration.ofMillis(DELAY_MS)));
            takeSpans.set(i, new Span(began, clock.incrementAndGet()));
        }

        /** Offers the next item (numbered from 1) to k (key 0) or j (key 1). */
        @Operation
        public void offer(@Param(name = "key") int key) {
            int n = items.incrementAndGet();
            offeredTo.set(n, key == 0 ? 'k' : 'j');
            long began = clock.incrementAndGet();
            handOff.offer(key == 0 ? "k" : "j", n);
            offerSpans.set(n, new Span(began, clock.incrementAndGet()));
        }

        @Operation
        public void cancel(@Param(name = "take") int i) {
            CompletableFuture<Handed<String, Integer>> take = takes.get(i);
            if (take != null) {
                take.cancel(true);
            }
        }

        /** Time passes: takes that are due time out. */
        @Operation
        public void tick() {
            timer.advance(DELAY_MS);
        }

        @Operation(runOnce = true)
        public void close() {
            handOff.close();
        }

        @Validate
        public void validate() {
            int[] given = new int[MAX_ITEMS];
            int[] takerOf = new int[MAX_ITEMS];
            for (int i = 0; i < 3; i++) {
                CompletableFuture<Handed<String, Integer>> take = takes.get(i);
                if (take == null) {
                    continue;
                }
                if (!take.isDone()) {
                    for (String key : KEYS.get(i)) {
                        if (handOff.queued(key) != 0) {
                            throw new AssertionError("take " + i + " waits on " + key + ", which has an item queued");
                        }
                    }
                } else if (!take.isCancelled() && take.join().isTaken()) {
                    int item = take.join().item();
                    given[item]++;
                    takerOf[item] = i;
                }
            }
            for (int x = 1; x < MAX_ITEMS; x++) {
                for (int y = 1; y < MAX_ITEMS; y++) {
                    boolean bothFromK = offeredTo.get(x) == 'k' && offeredTo.get(y) == 'k' && given[x] == 1 && given[y] == 1;
                    if (bothFromK && offerSpans.get(x).before(offerSpans.get(y))
                            && takeSpans.get(takerOf[y]).before(takeSpans.get(takerOf[x]))) {
                        throw new AssertionError("take " + takerOf[y] + " began waiting first but took item " + y
                                + ", offered after item " + x + ", which take " + takerOf[x] + " took");
                    }
                }
            }
            for (int i = 0; i < 3; i++) {
                timer.advance(DELAY_MS);
            }
            for (int i = 0; i < 3; i++) {
                if (takes.get(i) != null && !takes.get(i).isDone()) {
                    throw new AssertionError("take " + i + " has no answer after every deadline passed");
                }
            }
            int[] queued = new int[MAX_ITEMS];
            for (Optional<Handed<String, Integer>> h; (h = handOff.poll(List.of("j", "k"))).isPresent(); ) {
                queued[h.get().item()]++;
            }
            for (int n = 1; n <= items.get(); n++) {
                if (given[n] + queued[n] != 1) {
                    throw new AssertionError("item " + n + " was offered, and is given " + given[n] + " and queued " + queued[n] + " times");
                }
            }
            handOff.close();
            timer.close();
        }

    }

    /** The hand-off as the library builds it. */
    public static class Real extends Scenario {
        public Real() {
            super(HandOffWaiter.Trial.UNDER_LOCK);
        }
    }

    /** Items offered to waiters without their lock. */
    public static class Broken extends Scenario {
        public Broken() {
            super(UNLOCKED);
        }
    }

    private static ModelCheckingOptions options2x3(Class<? extends Scenario> test) {
        return options(5, 300, 2, 3)
                .addGuarantee(parksInEarnest(DelayedOperation.class, "parkForUnlock"))
                .addGuarantee(jmxIgnored())
                // an item offered to a waiter as it times out: the item is taken or left, never lost
                .addCustomScenario(scenario(test).first("take", 0).thread(0, "offer", 0).thread(1, "tick").build())
                // ... or as it is cancelled
                .addCustomScenario(scenario(test).first("take", 2).thread(0, "offer", 0).thread(1, "cancel", 2).build())
                // two offers and two takes racing: each item to one take, the older take first
                .addCustomScenario(scenario(test).first("take", 0).thread(0, "offer", 0).thread(0, "offer", 0)
                        .thread(1, "take", 1).thread(1, "take", 2).build())
                // a take racing a close
                .addCustomScenario(scenario(test).first("offer", 1).thread(0, "take", 2).thread(1, "close").build());
    }

    @Test
    void eachItemGoesToOneTakeOldestFirstAndNoneIsLost() {
        options2x3(Real.class).check(Real.class);
    }

    @Test
    void anItemTakenByAWaiterThatThenTimesOutIsCaught() {
        LincheckAssertionError caught = assertCaught(options2x3(Broken.class), Broken.class);
        assertTrue(caught.getMessage().contains("is given 0 and queued 0 times"), "caught as a lost item, not otherwise");
    }
}
