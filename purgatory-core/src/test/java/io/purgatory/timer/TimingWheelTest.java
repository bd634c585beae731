package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.TimerNodes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The single-threaded wheel on integer ticks: worked examples of the class comment's rules, then a
 * property test that drives random (seeded) add / remove / cancel / advance sequences against a
 * sorted multimap of due ticks.
 */
@Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TimingWheelTest {

    // ---------------------------------------------------------------------------------------------
    // Worked examples

    @ParameterizedTest(name = "wheelSize {0}")
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 1})
    void rejectsWheelSizeBelowTwo(int wheelSize) {
        assertThrows(IllegalArgumentException.class, () -> new TimingWheel(wheelSize, 0));
    }

    @Test
    void emptyWheelHasNoNextDueTickAndOneLevel() {
        TimingWheel wheel = new TimingWheel(20, 7);

        assertEquals(Long.MAX_VALUE, wheel.nextDueTick());
        assertEquals(1, wheel.levelCount());
        assertEquals(7, wheel.currentTick());
    }

    @Test
    void addRefusesATaskDueNowOrEarlierAndLinksNothing() {
        TimingWheel wheel = new TimingWheel(20, 100);
        Task dueNow = new Task(1, 100);
        Task duePast = new Task(2, 3);

        assertFalse(wheel.add(dueNow));
        assertFalse(wheel.add(duePast));
        assertFalse(TimerNodes.isLinked(dueNow));
        assertFalse(TimerNodes.isLinked(duePast));
        assertEquals(Long.MAX_VALUE, wheel.nextDueTick());
    }

    @Test
    void taskIsHandedOutOnItsDueTickAndNotOneTickBefore() {
        TimingWheel wheel = new TimingWheel(20, 0);
        Task task = new Task(1, 7);
        assertTrue(wheel.add(task));

        assertEquals(List.of(), advance(wheel, 6));
        assertEquals(List.of(task), advance(wheel, 7));
        assertEquals(Long.MAX_VALUE, wheel.nextDueTick());
    }

    @Test
    void taskInAnOverflowBucketIsNotHandedOutAtTheBucketStart() {
        // due 25 lands in the level-1 bucket [20, 40): the bucket comes due at 20, but the task must
        // only be re-added there, and expire at 25 (the "rounded down to a bucket start" pitfall)
        TimingWheel wheel = new TimingWheel(20, 0);
        Task task = new Task(1, 25);
        wheel.add(task);

        assertEquals(20, wheel.nextDueTick());
        assertEquals(List.of(), advance(wheel, 20));
        assertEquals(25, wheel.nextDueTick());
        assertEquals(List.of(), advance(wheel, 24));
        assertEquals(List.of(task), advance(wheel, 25));
    }

    @Test
    void overflowLevelsAreCreatedOnlyWhenADeadlineNeedsThem() {
        TimingWheel wheel = new TimingWheel(20, 0);

        wheel.add(new Task(1, 19));
        assertEquals(1, wheel.levelCount(), "19 ticks fit level 0 (interval 20)");
        wheel.add(new Task(2, 20));
        assertEquals(2, wheel.levelCount(), "20 ticks need level 1 (interval 400)");
        wheel.add(new Task(3, 399));
        assertEquals(2, wheel.levelCount());
        wheel.add(new Task(4, 400));
        assertEquals(3, wheel.levelCount(), "400 ticks need level 2 (interval 8000)");
    }

    @Test
    void oneAdvanceHandsOutTasksOfEveryLevelInDueOrder() {
        TimingWheel wheel = new TimingWheel(20, 0);
        List<Task> tasks = List.of(new Task(1, 410), new Task(2, 3), new Task(3, 25), new Task(4, 21),
                new Task(5, 8001), new Task(6, 399), new Task(7, 20));
        tasks.forEach(wheel::add);

        List<Long> handedOut = dueTicks(advance(wheel, 10_000));

        assertEquals(List.of(3L, 20L, 21L, 25L, 399L, 410L, 8001L), handedOut);
        assertEquals(10_000, wheel.currentTick());
    }

    @Test
    void tasksDueOnTheSameTickInOneBucketComeOutInAddOrder() {
        TimingWheel wheel = new TimingWheel(8, 0);
        List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tasks.add(new Task(i, 5));
        }
        tasks.forEach(wheel::add);

        assertEquals(tasks, advance(wheel, 5));
    }

    @Test
    void removedTaskIsNeverHandedOutAndItsEmptyBucketNoLongerCounts() {
        TimingWheel wheel = new TimingWheel(20, 0);
        Task early = new Task(1, 5);
        Task late = new Task(2, 310);
        wheel.add(early);
        wheel.add(late);

        wheel.remove(early);

        assertFalse(TimerNodes.isLinked(early));
        assertEquals(300, wheel.nextDueTick(), "the start of the level-1 bucket [300, 320)");
        assertEquals(List.of(late), advance(wheel, 1_000));
    }

    @Test
    void cancelledTaskStillLinkedIsSkippedWhenItsBucketComesDue() {
        // SystemTimer's reaper may reach a bucket before it takes the cancellation: the wheel must
        // drop the task, unlinked, so the later remove() is skipped
        TimingWheel wheel = new TimingWheel(20, 0);
        Task cancelled = new Task(1, 30);
        Task kept = new Task(2, 30);
        wheel.add(cancelled);
        wheel.add(kept);
        assertTrue(cancelled.cancel());

        assertEquals(List.of(kept), advance(wheel, 30));
        assertFalse(TimerNodes.isLinked(cancelled));
        assertEquals(Long.MAX_VALUE, wheel.nextDueTick());
    }

    @Test
    void advancingToAnEarlierTickDoesNothing() {
        TimingWheel wheel = new TimingWheel(20, 50);
        Task task = new Task(1, 60);
        wheel.add(task);

        assertEquals(List.of(), advance(wheel, 10));
        assertEquals(50, wheel.currentTick());
        assertEquals(60, wheel.nextDueTick());
    }

    @Test
    void nextDueTickWrapsAroundTheBitmapOfAWheelWiderThan64Buckets() {
        // wheelSize 100 keeps two words of occupancy bits; from tick 90 the earliest bucket is 95
        // (word 1), and the one after it wraps to index 30 (word 0)
        TimingWheel wheel = new TimingWheel(100, 90);
        Task wrapped = new Task(1, 130);
        Task first = new Task(2, 95);
        wheel.add(wrapped);
        wheel.add(first);

        assertEquals(95, wheel.nextDueTick());
        assertEquals(List.of(first), advance(wheel, 95));
        assertEquals(130, wheel.nextDueTick());
        assertEquals(List.of(wrapped), advance(wheel, 130));
    }

    @ParameterizedTest(name = "wheelSize {0}")
    @ValueSource(ints = {2, 3, 20, 64})
    void farDeadlineNearLongMaxOverTwoIsHandedOutOnItsTick(int wheelSize) {
        long due = Long.MAX_VALUE / 2;
        TimingWheel wheel = new TimingWheel(wheelSize, 0);
        Task task = new Task(1, due);
        wheel.add(task);

        assertEquals(List.of(), advance(wheel, due - 1));
        assertEquals(due, wheel.nextDueTick());
        assertEquals(List.of(task), advance(wheel, due));
    }

    @ParameterizedTest(name = "wheelSize {0}")
    @ValueSource(ints = {2, 20, 64, 100})
    void wheelStartingNearLongMaxOverTwoHandsOutEachTaskOnItsTick(int wheelSize) {
        long start = Long.MAX_VALUE / 2 - 3;
        TimingWheel wheel = new TimingWheel(wheelSize, start);
        long[] offsets = {1, 2, 3, 4, wheelSize - 1, wheelSize, wheelSize + 1,
                (long) wheelSize * wheelSize, (long) wheelSize * wheelSize + 7};
        TreeMap<Long, List<Task>> byDue = new TreeMap<>();
        for (int i = 0; i < offsets.length; i++) {
            Task task = new Task(i, start + offsets[i]);
            assertTrue(wheel.add(task));
            byDue.computeIfAbsent(TimerNodes.dueTick(task), d -> new ArrayList<>()).add(task);
        }

        for (Map.Entry<Long, List<Task>> due : byDue.entrySet()) {
            assertEquals(List.of(), advance(wheel, due.getKey() - 1), "nothing before tick " + due.getKey());
            assertEquals(due.getValue(), advance(wheel, due.getKey()), "exactly the tasks due at " + due.getKey());
        }
        assertEquals(Long.MAX_VALUE, wheel.nextDueTick());
    }

    // ---------------------------------------------------------------------------------------------
    // Property: random operation sequences against a reference model

    /**
     * Every linked task is handed out exactly once, at an advance whose tick has reached its due
     * tick, in non-decreasing due-tick order; removed and cancelled tasks never; after every step
     * {@code currentTick < nextDueTick() <= earliest linked due tick} (or MAX_VALUE when empty), as
     * the class comment's invariants imply. Draining by waking only at nextDueTick() takes a number
     * of wake-ups bounded by tasks times levels, not by elapsed ticks.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void matchesASortedMultimapOfDueTicks(long seed) {
        // a scenario takes well under a millisecond; the class's timeout turns a wheel that loops into a failure
        Scenario scenario = scenario(new Random(seed));
        new ModelCheck(scenario.wheelSize(), scenario.startTick()).run(scenario.steps());
    }

    /** 1500 fixed seeds, so a failure names the seed that reproduces it. */
    static LongStream seeds() {
        return LongStream.range(0, 1500).map(i -> i * 0x9E3779B97F4A7C15L);
    }

    private static final int[] WHEEL_SIZES = {2, 3, 8, 20, 64, 100};

    static Scenario scenario(Random random) {
        int ws = WHEEL_SIZES[random.nextInt(WHEEL_SIZES.length)];
        long start = startTick(random, ws);
        int count = 1 + random.nextInt(150);
        List<Step> steps = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            steps.add(step(random, ws));
        }
        return new Scenario(ws, start, steps);
    }

    private static long startTick(Random random, int ws) {
        List<Long> boundaries = new ArrayList<>();
        for (long p = ws; p <= Long.MAX_VALUE / 2; p = p > Long.MAX_VALUE / ws ? Long.MAX_VALUE : p * ws) {
            boundaries.add(p - 1); // one tick before a level boundary: the first advance crosses it
            boundaries.add(p);
        }
        switch (weighted(random, 3, 3, 3, 3, 2)) {
            case 0: return 0;
            case 1: return longs(random, 0, 10_000);
            case 2: return boundaries.get(random.nextInt(boundaries.size()));
            case 3: return longs(random, Long.MAX_VALUE / 2 - 10_000, Long.MAX_VALUE / 2);
            default: return longs(random, 0, Long.MAX_VALUE / 2);
        }
    }

    private static Step step(Random random, int ws) {
        List<Long> boundaryOffsets = new ArrayList<>();
        for (long p = ws; p <= Long.MAX_VALUE / 4; p *= ws) {
            boundaryOffsets.add(p - 1);
            boundaryOffsets.add(p);
            boundaryOffsets.add(p + 1);
            if (p > Long.MAX_VALUE / 4 / ws) {
                break;
            }
        }
        int levels = boundaryOffsets.size() / 3;
        switch (weighted(random, 35, 12, 8, 6, 4, 30)) {
            case 0:
                switch (weighted(random, 2, 6, 4, 2, 1)) {
                    case 0: return new Add(longs(random, -3, 1)); // past, now, next: add refuses <= 0
                    case 1: return new Add(longs(random, 1, 3L * ws));
                    case 2: return new Add(boundaryOffsets.get(random.nextInt(boundaryOffsets.size())));
                    case 3: return new Add(longs(random, 1, (long) ws * ws * ws * ws));
                    default: return new Add(longs(random, 1, Long.MAX_VALUE / 2));
                }
            case 1:
                return new AddAligned(1 + random.nextInt(Math.max(1, Math.min(levels, 6))),
                        random.nextInt(ws + 2), random.nextInt(3) - 1);
            case 2:
                return new Remove(random.nextInt(1_001));
            case 3:
                return new Cancel(random.nextInt(1_001));
            case 4:
                return new TakeCancellations();
            default:
                switch (weighted(random, 4, 2, 1, 4, 2, 2, 1)) {
                    case 0: return advanceStep(AdvanceKind.BY, longs(random, 0, 3L * ws));
                    case 1: return advanceStep(AdvanceKind.BY, longs(random, 0, (long) ws * ws * ws));
                    case 2: return advanceStep(AdvanceKind.BY, longs(random, 0, Long.MAX_VALUE / 4));
                    case 3: return advanceStep(AdvanceKind.TO_NEXT_DUE_TICK, 0);
                    case 4: return advanceStep(AdvanceKind.TO_JUST_BEFORE_NEXT_DUE_TICK, 0);
                    case 5: return advanceStep(AdvanceKind.TO_EARLIEST_DUE_TICK, 0);
                    default: return advanceStep(AdvanceKind.BACKWARDS, longs(random, 1, 3L * ws));
                }
        }
    }

    /** An index drawn with the given relative weights. */
    private static int weighted(Random random, int... weights) {
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int r = random.nextInt(total);
        for (int i = 0; ; i++) {
            r -= weights[i];
            if (r < 0) {
                return i;
            }
        }
    }

    /** Uniform in [min, max], both inclusive; every range used here is narrower than Long.MAX_VALUE. */
    private static long longs(Random random, long min, long max) {
        return min + Math.floorMod(random.nextLong(), max - min + 1);
    }

    private static Step advanceStep(AdvanceKind kind, long amount) {
        return new Advance(kind, amount);
    }

    record Scenario(int wheelSize, long startTick, List<Step> steps) {
    }

    sealed interface Step permits Add, AddAligned, Remove, Cancel, TakeCancellations, Advance {
    }

    /** Adds a task due {@code offset} ticks after the current tick (saturating). */
    record Add(long offset) implements Step {
    }

    /** Adds a task due {@code nudge} ticks around the start of the bucket {@code slots} spans of {@code ws^level} ahead. */
    record AddAligned(int level, int slots, int nudge) implements Step {
    }

    /** Removes a pending task, picked by index, as SystemTimer does for a cancellation it takes. */
    record Remove(int pick) implements Step {
    }

    /** Cancels a pending task but leaves it linked: the wheel may meet it before remove() runs. */
    record Cancel(int pick) implements Step {
    }

    /** Removes every cancelled task still linked, exactly as SystemTimer's reaper does. */
    record TakeCancellations() implements Step {
    }

    enum AdvanceKind { BY, TO_NEXT_DUE_TICK, TO_JUST_BEFORE_NEXT_DUE_TICK, TO_EARLIEST_DUE_TICK, BACKWARDS }

    record Advance(AdvanceKind kind, long amount) implements Step {
    }

    /** One run of a scenario: the wheel under test next to the reference model. */
    private static final class ModelCheck {
        final int ws;
        final TimingWheel wheel;
        /** The model: due tick to the tasks pending then (linked, not cancelled). */
        TreeMap<Long, List<Task>> pending = new TreeMap<>();
        /** Cancelled tasks the wheel may still hold (SystemTimer removes them when it takes them). */
        List<Task> cancelledMaybeLinked = new ArrayList<>();
        Set<Task> gone = Collections.newSetFromMap(new IdentityHashMap<>());
        long current;
        long lastHandedOutDue = Long.MIN_VALUE;
        int lastLevelCount = 1;
        int nextId;
        List<String> log = new ArrayList<>();

        ModelCheck(int ws, long start) {
            this.ws = ws;
            this.wheel = new TimingWheel(ws, start);
            this.current = start;
        }

        void run(List<Step> steps) {
            checkIntegrity();
            for (Step step : steps) {
                log.add(step.toString());
                apply(step);
                checkIntegrity();
            }
            drainByWakingAtNextDueTick();
        }

        void apply(Step step) {
            if (step instanceof Add a) {
                add(tick(saturatedAdd(current, a.offset())));
            } else if (step instanceof AddAligned a) {
                long span = pow(ws, a.level());
                long start = current - Math.floorMod(current, span);
                add(tick(saturatedAdd(saturatedAdd(start, saturatedMultiply(a.slots(), span)), a.nudge())));
            } else if (step instanceof Remove r) {
                Task task = pick(r.pick());
                if (task != null) {
                    wheel.remove(task);
                    forget(task);
                    assertFalse(TimerNodes.isLinked(task), "remove() must unlink the task");
                }
            } else if (step instanceof Cancel c) {
                Task task = pick(c.pick());
                if (task != null) {
                    assertTrue(task.cancel());
                    forget(task);
                    cancelledMaybeLinked.add(task);
                }
            } else if (step instanceof TakeCancellations) {
                for (Task task : cancelledMaybeLinked) {
                    if (TimerNodes.isLinked(task)) {
                        wheel.remove(task);
                    }
                }
                cancelledMaybeLinked.clear();
            } else if (step instanceof Advance a) {
                long target = switch (a.kind()) {
                    case BY -> tick(saturatedAdd(current, a.amount()));
                    case TO_NEXT_DUE_TICK -> wheel.nextDueTick();
                    case TO_JUST_BEFORE_NEXT_DUE_TICK -> wheel.nextDueTick() == Long.MAX_VALUE
                            ? Long.MAX_VALUE : wheel.nextDueTick() - 1;
                    case TO_EARLIEST_DUE_TICK -> pending.isEmpty() ? current : pending.firstKey();
                    case BACKWARDS -> current - a.amount();
                };
                if (a.kind() == AdvanceKind.BY || target != Long.MAX_VALUE) {
                    advanceAndCheck(target); // but do not jump to the end of time on an empty wheel
                }
            }
        }

        void add(long due) {
            Task task = new Task(nextId++, due);
            boolean linked = wheel.add(task);
            assertEquals(due > current, linked, () -> "add(" + due + ") at tick " + current + trace());
            if (linked) {
                pending.computeIfAbsent(due, d -> new ArrayList<>()).add(task);
                assertTrue(TimerNodes.isLinked(task), "a linked task has a list");
            } else {
                assertFalse(TimerNodes.isLinked(task), () -> "a refused task must not be linked" + trace());
            }
        }

        Task pick(int index) {
            List<Task> all = pending.values().stream().flatMap(List::stream).toList();
            return all.isEmpty() ? null : all.get(index % all.size());
        }

        void forget(Task task) {
            List<Task> atDue = pending.get(TimerNodes.dueTick(task));
            assertTrue(atDue.remove(task));
            if (atDue.isEmpty()) {
                pending.remove(TimerNodes.dueTick(task));
            }
            gone.add(task);
        }

        List<Task> advanceAndCheck(long target) {
            List<Task> handedOut = new ArrayList<>();
            wheel.advance(target, task -> {
                assertFalse(TimerNodes.isLinked(task), () -> "handed out while still linked: " + task + trace());
                handedOut.add((Task) task);
            });
            for (Task task : handedOut) {
                assertFalse(gone.contains(task), () -> "handed out twice, or after remove/cancel: " + task + trace());
                assertTrue(TimerNodes.dueTick(task) <= target,
                        () -> "handed out early: " + task + " at advance(" + target + ")" + trace());
                assertTrue(TimerNodes.dueTick(task) >= lastHandedOutDue,
                        () -> "out of due order: " + task + " after due " + lastHandedOutDue + trace());
                lastHandedOutDue = TimerNodes.dueTick(task);
                forget(task);
            }
            // everything the model holds due by the target must have come out
            assertTrue(pending.isEmpty() || pending.firstKey() > target,
                    () -> "due by " + target + " but still pending: " + pending.headMap(target, true) + trace());
            current = Math.max(current, target);
            return handedOut;
        }

        void checkIntegrity() {
            assertEquals(current, wheel.currentTick(), this::trace);
            int levels = wheel.levelCount();
            assertTrue(levels >= lastLevelCount && levels <= 64, () -> "level count " + levels + trace());
            lastLevelCount = levels;
            for (List<Task> tasks : pending.values()) {
                for (Task task : tasks) {
                    assertTrue(TimerNodes.isLinked(task), () -> "pending task unlinked: " + task + trace());
                }
            }
            OptionalLong earliestCancelled = cancelledMaybeLinked.stream().filter(t -> TimerNodes.isLinked(t))
                    .mapToLong(TimerNodes::dueTick).min();
            long earliestLinked = Math.min(pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey(),
                    earliestCancelled.orElse(Long.MAX_VALUE));
            long next = wheel.nextDueTick();
            if (pending.isEmpty() && earliestCancelled.isEmpty()) {
                assertEquals(Long.MAX_VALUE, next, () -> "empty wheel" + trace());
            } else {
                assertTrue(next > current && next <= earliestLinked,
                        () -> "nextDueTick " + next + " outside (" + current + ", " + earliestLinked + "]" + trace());
            }
        }

        /**
         * Wakes only when nextDueTick() says so, as the reaper does: each wake-up must make
         * progress, and all tasks come out after at most (linked tasks) x (levels) wake-ups.
         */
        void drainByWakingAtNextDueTick() {
            TakeCancellations take = new TakeCancellations();
            if (!cancelledMaybeLinked.isEmpty() && nextId % 2 == 0) {
                apply(take); // sometimes leave cancelled tasks for the wheel to meet while draining
                checkIntegrity();
            }
            long linked = pending.values().stream().mapToLong(List::size).sum() + cancelledMaybeLinked.size();
            long budget = (linked + 1) * (wheel.levelCount() + 1);
            long wakeUps = 0;
            while (wheel.nextDueTick() != Long.MAX_VALUE) {
                long next = wheel.nextDueTick();
                advanceAndCheck(next);
                checkIntegrity();
                assertTrue(wheel.nextDueTick() > next, () -> "advance(" + next + ") made no progress" + trace());
                wakeUps++;
                assertTrue(wakeUps <= budget, () -> "more than " + budget + " wake-ups to drain" + trace());
            }
            assertTrue(pending.isEmpty(), () -> "never handed out: " + pending + trace());
        }

        String trace() {
            return "\n  wheelSize " + ws + ", steps so far: " + log.stream().collect(Collectors.joining(", "));
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static List<Task> advance(TimingWheel wheel, long tick) {
        List<Task> out = new ArrayList<>();
        wheel.advance(tick, task -> out.add((Task) task));
        return out;
    }

    private static List<Long> dueTicks(List<Task> tasks) {
        return tasks.stream().map(TimerNodes::dueTick).toList();
    }

    /**
     * Keeps a generated tick below Long.MAX_VALUE, which nextDueTick() uses for "no bucket". Real
     * due ticks stay far below it: SystemTimer's are at most Long.MAX_VALUE / 1_000_000.
     */
    private static long tick(long t) {
        return Math.min(t, Long.MAX_VALUE - 1);
    }

    private static long pow(int base, int exp) {
        long r = 1;
        for (int i = 0; i < exp; i++) {
            r = saturatedMultiply(r, base);
        }
        return r;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }

    private static long saturatedMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
    }

    /** A bare task: the wheel reads only its link fields and dueTick. */
    static final class Task extends TimerTask {
        final int id;

        Task(int id, long dueTick) {
            super(0);
            this.id = id;
            TimerNodes.dueTick(this, dueTick);
        }

        @Override
        public void run() {
            throw new AssertionError("the wheel must never run a task");
        }

        @Override
        public String toString() {
            return "Task#" + id + "@" + TimerNodes.dueTick(this);
        }
    }
}
