package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SystemTimer} driven by the test: the clock is the test's, and the reaper's rounds and the
 * executor's batches run on the test's thread when it says, as in the model check
 * (SystemTimerLincheckTest), but one step at a time with exact expectations. So what the real-time
 * tests can only bound (a task never runs early) is checked exactly here: a task runs in the first
 * round at or after its deadline, rounded up to a tick; {@code size()} is exact after every step;
 * and after every call the timer's own invariant holds: no wake-up is lost ({@code lostWakeUp()}:
 * a reaper that sleeps until tick T is woken by an add due before T, and by any hand-off while it
 * sleeps longer than the slack; expired tasks have the executor woken).
 */
class SystemTimerDrivenTest {

    private static final long NANOS_PER_MS = 1_000_000L;

    /** The test's clock, in nanoseconds; starts far from 0 so that the timer's start offset matters. */
    private static final class Clock implements LongSupplier {
        private final AtomicLong nanos = new AtomicLong(7_000_000_000L);

        @Override
        public long getAsLong() {
            return nanos.get();
        }

        void advanceNanos(long n) {
            nanos.addAndGet(n);
        }
    }

    /** A task that records the timer's clock (in ms) at each run. */
    private static final class Probe extends TimerTask {
        private final SystemTimer timer;
        private final List<Long> ranAtMs = new ArrayList<>();

        Probe(SystemTimer timer, long delayMs) {
            super(delayMs);
            this.timer = timer;
        }

        @Override
        public void run() {
            ranAtMs.add(timer.nowMs());
        }
    }

    private final Clock clock = new Clock();

    private SystemTimer timer(long tickMs, int wheelSize) {
        return new SystemTimer("driven", tickMs, wheelSize, clock);
    }

    /** One round of the reaper, then one batch of the executor, checking the invariant after each. */
    private static void step(SystemTimer timer) {
        timer.reaperRound();
        assertNull(timer.lostWakeUp(), "after the round");
        timer.executorBatch();
        assertNull(timer.lostWakeUp(), "after the batch");
    }

    /** Moves the clock 1 ms at a time up to {@code ms} after the start, a step each. */
    private void stepEveryMsUntil(SystemTimer timer, long ms) {
        while (timer.nowMs() < ms) {
            clock.advanceNanos(NANOS_PER_MS);
            step(timer);
        }
    }

    private static Probe add(SystemTimer timer, long delayMs) {
        Probe probe = new Probe(timer, delayMs);
        timer.add(probe);
        assertNull(timer.lostWakeUp(), "after adding " + delayMs + " ms");
        return probe;
    }

    @Test
    void everyTaskRunsOnceInTheFirstRoundAtItsDeadlineAcrossEveryLevelOfASmallWheel() {
        SystemTimer timer = timer(1, 4); // levels of 4, 16, 64, 256, 1024 ms
        long[] delays = {0, 1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 256, 257, 300, 1023, 1024, 1500};
        List<Probe> probes = new ArrayList<>();
        for (long delay : delays) {
            probes.add(add(timer, delay));
        }
        assertEquals(delays.length, timer.size());
        step(timer);
        stepEveryMsUntil(timer, 1600);
        for (int i = 0; i < delays.length; i++) {
            assertEquals(List.of(delays[i]), probes.get(i).ranAtMs, "the task of " + delays[i] + " ms");
        }
        assertEquals(0, timer.size());
    }

    @Test
    void tasksAddedBetweenRoundsRunAtTheirOwnDeadlinesInDeadlineOrder() {
        SystemTimer timer = timer(1, 8);
        List<Long> order = new ArrayList<>();
        stepEveryMsUntil(timer, 5);
        for (long delay : new long[] {9, 3, 6, 3}) {
            long d = delay;
            timer.add(new TimerTask(delay) {
                @Override
                public void run() {
                    order.add(d * 1000 + timer.nowMs());
                }
            });
        }
        stepEveryMsUntil(timer, 20);
        assertEquals(List.of(3_008L, 3_008L, 6_011L, 9_014L), order, "delay * 1000 + the time it ran");
    }

    /**
     * Tasks of one delay added in order, taken by the reaper over several rounds, share a bucket and
     * run in the order they were added (each hand-off stack is reversed on its way). Driven, because
     * in real time this holds only if the reaper's wheel clock keeps up with the adds: a reaper that
     * was idle, or not scheduled, links the first of them a level up (their deadline lies a whole
     * level-0 revolution past its stale clock), and moved down they line up behind the later ones
     * linked straight into the level-0 bucket, as docs/architecture.md says of the timing wheel.
     */
    @ParameterizedTest(name = "delay {0} ms")
    @ValueSource(longs = {0, 10})
    void tasksWithTheSameDelayAddedInOrderRunInThatOrder(long delayMs) {
        SystemTimer timer = timer(1, 20);
        List<Integer> added = new ArrayList<>();
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            int id = i;
            timer.add(new TimerTask(delayMs) {
                @Override
                public void run() {
                    ran.add(id);
                }
            });
            added.add(id);
            if (i % 7 == 6) {
                step(timer); // the reaper takes them over several rounds; the executor runs those due
            }
        }
        stepEveryMsUntil(timer, delayMs + 1);
        assertEquals(added, ran);
    }

    @Test
    void aCoarseTickRoundsTheDeadlineUpToATickNeverDown() {
        SystemTimer timer = timer(10, 8);
        Probe fifteen = add(timer, 15); // due at 15 ms: tick 2, that is 20 ms
        Probe twenty = add(timer, 20);
        clock.advanceNanos(10 * NANOS_PER_MS);
        step(timer);
        clock.advanceNanos(5 * NANOS_PER_MS);
        step(timer);
        assertEquals(List.of(), fifteen.ranAtMs, "not at 15 ms: the round runs whole ticks");
        clock.advanceNanos(4 * NANOS_PER_MS);
        step(timer);
        assertEquals(List.of(), fifteen.ranAtMs, "not at 19 ms");
        clock.advanceNanos(NANOS_PER_MS);
        step(timer);
        assertEquals(List.of(20L), fifteen.ranAtMs);
        assertEquals(List.of(20L), twenty.ranAtMs);
    }

    @Test
    void aDeadlineIsCountedFromTheNextWholeMillisecond() {
        SystemTimer timer = timer(1, 8);
        clock.advanceNanos(NANOS_PER_MS / 2); // 0.5 ms: a delay of 1 ms ends at 2 ms, not 1.5 rounded down
        ScheduledTask task = timer.schedule(() -> { }, 1);
        assertEquals(2L, task.deadlineMs());
        clock.advanceNanos(NANOS_PER_MS); // 1.5 ms
        step(timer);
        assertFalse(task.isDone(), "not at 1.5 ms");
        clock.advanceNanos(NANOS_PER_MS / 2);
        step(timer);
        assertTrue(task.isDone());
    }

    @Test
    void nowCountsWholeMillisecondsFromTheTimersStart() {
        SystemTimer timer = timer(1, 8);
        assertEquals(0, timer.nowMs());
        clock.advanceNanos(2 * NANOS_PER_MS - 1);
        assertEquals(1, timer.nowMs());
        clock.advanceNanos(1);
        assertEquals(2, timer.nowMs());
    }

    @Test
    void theDeadlineOfAScheduledTaskIsItsTickInMilliseconds() {
        SystemTimer timer = timer(10, 8);
        ScheduledTask task = timer.schedule(() -> { }, 25);
        assertEquals(30, task.deadlineMs(), "25 ms rounded up to the 10 ms tick");
        ScheduledTask never = timer.schedule(() -> { }, Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, never.deadlineMs(), "saturated, not wrapped");
        stepEveryMsUntil(timer, 1000);
        assertFalse(never.isDone());
        assertEquals(1, timer.size(), "the task of Long.MAX_VALUE ms is pending");
    }

    @Test
    void aCancelledTaskNeverRunsAndLeavesTheSizeAtOnceWhereverItWaits() {
        SystemTimer timer = timer(1, 4);
        Probe queued = add(timer, 5);
        Probe scheduled = add(timer, 50);
        Probe kept = add(timer, 60);
        assertTrue(queued.cancel(), "cancelled on the add stack");
        assertEquals(2, timer.size());
        step(timer);
        assertTrue(scheduled.cancel(), "cancelled in the wheel");
        assertNull(timer.lostWakeUp());
        assertEquals(1, timer.size());
        stepEveryMsUntil(timer, 100);
        assertEquals(List.of(), queued.ranAtMs);
        assertEquals(List.of(), scheduled.ranAtMs);
        assertEquals(List.of(60L), kept.ranAtMs);
        assertEquals(0, timer.size());
        assertFalse(scheduled.cancel(), "cancelled once");
    }

    @Test
    void anAddWakesTheReaperWhenDueBeforeItWakesOrWhenItSleepsLong() {
        SystemTimer timer = timer(1, 8);
        Probe far = add(timer, 100);
        step(timer); // took the add: sleeps the hand-off slack at most, until tick 10
        Probe early = add(timer, 3); // due before tick 10: it must wake the reaper (checked in add)
        stepEveryMsUntil(timer, 3);
        assertEquals(List.of(3L), early.ranAtMs);
        // rounds 1 to 3 took nothing: the reaper sleeps until tick 100, longer than the slack
        Probe late = add(timer, 200); // due after it wakes, but a hand-off must not wait that long
        stepEveryMsUntil(timer, 203);
        assertEquals(List.of(100L), far.ranAtMs);
        assertEquals(List.of(203L), late.ranAtMs);
    }

    @Test
    void aCancelWakesAReaperThatSleepsLongerThanTheSlack() {
        SystemTimer timer = timer(1, 8);
        Probe far = add(timer, 100);
        step(timer);
        clock.advanceNanos(NANOS_PER_MS);
        step(timer); // sleeps until tick 100
        assertTrue(far.cancel());
        assertNull(timer.lostWakeUp(), "the cancelled task is unlinked now, not when its tick comes");
        assertEquals(0, timer.size());
        stepEveryMsUntil(timer, 120);
        assertEquals(List.of(), far.ranAtMs);
    }

    @Test
    void aRecurringCallbackRunsAtEveryPeriodUntilCancelled() {
        SystemTimer timer = timer(1, 4);
        List<Long> runs = new ArrayList<>();
        ScheduledTask task = timer.scheduleAtFixedRate(() -> runs.add(timer.nowMs()), 2, 3);
        assertEquals(1, timer.size());
        step(timer);
        stepEveryMsUntil(timer, 12);
        assertEquals(List.of(2L, 5L, 8L, 11L), runs);
        assertEquals(1, timer.size(), "pending until cancelled");
        assertTrue(task.cancel());
        assertEquals(0, timer.size());
        stepEveryMsUntil(timer, 30);
        assertEquals(List.of(2L, 5L, 8L, 11L), runs);
    }

    @Test
    void closeDropsThePendingTasksRunsTheExpiredOnesAndRefusesAdds() {
        SystemTimer timer = timer(1, 8);
        Probe due = add(timer, 1);
        Probe pending = add(timer, 50);
        List<Long> recurring = new ArrayList<>();
        ScheduledTask callback = timer.scheduleAtFixedRate(() -> recurring.add(timer.nowMs()), 1, 1);
        clock.advanceNanos(NANOS_PER_MS);
        timer.reaperRound(); // both due tasks expire; the executor has not run them yet
        timer.close();
        assertEquals(0, timer.size(), "what was pending will never run");
        timer.executorBatch();
        assertEquals(List.of(1L), due.ranAtMs, "expired before close: still runs");
        assertEquals(List.of(1L), recurring, "it ran once and was not put back");
        assertTrue(callback.isDone(), "a recurring callback that runs after close is done");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> timer.add(new Probe(timer, 1)));
        assertEquals("timer driven is closed", e.getMessage());
        assertEquals(List.of(), pending.ranAtMs);
        timer.close(); // idempotent
        assertEquals(0, timer.size());
    }

    @Test
    void toStringNamesTheTimerItsTickAndItsTasks() {
        SystemTimer timer = timer(10, 8);
        add(timer, 100);
        assertEquals("SystemTimer[driven, tick 10 ms, 1 tasks]", timer.toString());
    }

    @Test
    void theTickMustBeFromOneMillisecondToWhatNanosecondsCanHold() {
        long largest = Long.MAX_VALUE / NANOS_PER_MS;
        assertThrows(IllegalArgumentException.class, () -> timer(0, 8));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> timer(largest + 1, 8));
        assertEquals("tickMs must be from 1 to " + largest + ": " + (largest + 1), e.getMessage());
        SystemTimer coarsest = timer(largest, 8);
        assertEquals("SystemTimer[driven, tick " + largest + " ms, 0 tasks]", coarsest.toString());
        SystemTimer finest = timer(1, 8);
        Probe probe = add(finest, 1);
        stepEveryMsUntil(finest, 1);
        assertEquals(List.of(1L), probe.ranAtMs);
    }

    @Test
    void aTaskDueAtOnceHasTheDeadlineZeroAndACustomScheduleThatStopsLeavesTheCount() {
        SystemTimer timer = timer(1, 8);
        ScheduledTask now = timer.schedule(() -> { }, 0);
        assertEquals(0, now.deadlineMs(), "due at once: 0, not saturated");
        List<Long> runs = new ArrayList<>();
        ScheduledTask twice = timer.schedule(() -> runs.add(timer.nowMs()),
                (previous, nowMs) -> runs.size() < 2 ? previous + 5 : Schedule.STOP);
        assertEquals(2, timer.size());
        stepEveryMsUntil(timer, 20);
        assertEquals(List.of(5L, 10L), runs, "the first deadline is the schedule's too");
        assertTrue(twice.isDone());
        assertEquals(0, timer.size(), "a schedule that ended is no longer pending");
    }

    @Test
    void closeReturnsOnceTheReaperHasEndedAndKeepsTheCallersInterrupt() {
        SystemTimer running = new SystemTimer("closing-" + System.nanoTime());
        Thread reaper = threadNamed(running.toString().substring("SystemTimer[".length()).split(",")[0] + "-reaper");
        running.close();
        assertFalse(reaper.isAlive(), "close joined the reaper");

        SystemTimer interrupted = new SystemTimer("interrupted-" + System.nanoTime());
        Thread.currentThread().interrupt();
        try {
            interrupted.close();
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertEquals(0, interrupted.size());
    }

    private static Thread threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }
}
