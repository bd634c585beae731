package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The callback forms on manual time: every outcome is deterministic, so every assertion is exact.
 * The time-out only turns a lost cancel in the race test (which would spin) into a failure.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ScheduledTaskTest {

    private final MockTimer timer = new MockTimer();
    /** The clock at the start of each run, in order. */
    private final List<Long> runs = new ArrayList<>();
    private final Runnable record = () -> runs.add(timer.nowMs());

    @AfterEach
    void close() {
        timer.close();
    }

    @Test
    void callbackRunsOnceAtItsDeadlineAndIsThenDone() {
        timer.advance(7);
        ScheduledTask handle = timer.schedule(record, 10);
        assertEquals(17, handle.deadlineMs());
        assertEquals(1, timer.size());

        timer.advance(9);
        assertEquals(List.of(), runs);
        assertFalse(handle.isDone());

        timer.advance(1);
        assertEquals(List.of(17L), runs);
        assertTrue(handle.isDone());
        assertFalse(handle.isCancelled());
        assertFalse(handle.cancel(), "it has run");
        assertEquals(0, timer.size());

        timer.advance(1_000);
        assertEquals(List.of(17L), runs, "once");
    }

    @Test
    void cancelledCallbackNeverRuns() {
        ScheduledTask handle = timer.schedule(record, 10);

        assertTrue(handle.cancel());
        assertFalse(handle.cancel(), "only the first cancel wins");
        timer.advance(100);

        assertEquals(List.of(), runs);
        assertTrue(handle.isCancelled());
        assertTrue(handle.isDone());
        assertEquals(0, timer.size());
    }

    @Test
    void fixedRateRunsEveryDueOccurrenceInOrderWithinOneAdvance() {
        ScheduledTask handle = timer.scheduleAtFixedRate(record, 5, 10);
        timer.schedule(() -> runs.add(-timer.nowMs()), 30); // a one-shot task among them

        timer.advance(100);

        assertEquals(List.of(5L, 15L, 25L, -30L, 35L, 45L, 55L, 65L, 75L, 85L, 95L), runs);
        assertEquals(105, handle.deadlineMs(), "the next run");
        assertEquals(1, timer.size(), "a recurring callback stays pending");
        assertFalse(handle.isDone());
    }

    @Test
    void fixedRateDoesNotDriftWhenRunsTakeTimeWhileFixedDelayCountsFromTheirEnd() {
        timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            timer.advance(3); // the run takes 3 ms
        }, 10, 10);
        List<Long> fixedDelay = new ArrayList<>();
        try (MockTimer other = new MockTimer()) {
            other.scheduleWithFixedDelay(() -> {
                fixedDelay.add(other.nowMs());
                other.advance(3);
            }, 10, 10);

            timer.advance(60);
            other.advance(60);
        }

        assertEquals(List.of(10L, 20L, 30L, 40L, 50L, 60L), runs);
        assertEquals(List.of(10L, 23L, 36L, 49L), fixedDelay, "each run 10 ms after the previous one ended");
    }

    @Test
    void fixedRateSkipsTheRunsMissedDuringAPauseInsteadOfReplayingThem() {
        timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            if (runs.size() == 2) {
                timer.advance(35); // the second run stalls from 20 to 55: 30, 40 and 50 are missed
            }
        }, 10, 10);

        timer.advance(100);

        assertEquals(List.of(10L, 20L, 60L, 70L, 80L, 90L, 100L), runs, "no burst; back on the same grid");
    }

    @Test
    void fixedRateRunsAtOnceAfterAPauseThatEndsExactlyOnARun() {
        timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            if (runs.size() == 1) {
                timer.advance(20); // 10 to 30: 20 is missed, 30 is due now
            }
        }, 10, 10);

        timer.advance(40);

        assertEquals(List.of(10L, 30L, 40L), runs);
    }

    @Test
    void scheduleGivesEveryDeadlineAndStops() {
        List<long[]> calls = new ArrayList<>();
        Iterator<Long> deadlines = List.of(4L, 12L, 30L).iterator();
        Schedule schedule = (previous, now) -> {
            calls.add(new long[] {previous, now});
            return deadlines.hasNext() ? deadlines.next() : Schedule.STOP;
        };
        timer.advance(2);
        ScheduledTask handle = timer.schedule(record, schedule);
        assertEquals(4, handle.deadlineMs());

        timer.advance(1_000);

        assertEquals(List.of(4L, 12L, 30L), runs);
        assertTrue(handle.isDone());
        assertFalse(handle.isCancelled());
        assertFalse(handle.cancel(), "its schedule has ended");
        assertEquals(0, timer.size());
        assertEquals(List.of("2,2", "4,4", "12,12", "30,30"), calls.stream().map(c -> c[0] + "," + c[1]).toList(),
                "the first call at scheduling, then one after each run, with its deadline and the clock");
    }

    @Test
    void scheduleThatStopsAtOnceNeverRuns() {
        ScheduledTask handle = timer.schedule(record, (previous, now) -> Schedule.STOP);

        timer.advance(100);

        assertEquals(List.of(), runs);
        assertTrue(handle.isDone());
        assertEquals(0, timer.size());
    }

    @Test
    void scheduleGoingBackInTimeIsStoppedAndLogged() {
        try (LogCapture log = LogCapture.of(ScheduledTask.class)) {
            ScheduledTask handle = timer.schedule(record, (previous, now) -> previous == 0 ? 5 : previous);

            timer.advance(100);

            assertEquals(List.of(5L), runs);
            assertTrue(handle.isDone());
            assertEquals(0, timer.size());
            assertEquals(1, log.messages(Level.WARN).size(), log.messages(Level.WARN)::toString);
            assertTrue(log.messages(Level.WARN).get(0).contains("not after its previous deadline 5 ms"));
        }
    }

    @Test
    void scheduleThatThrowsIsStoppedAndLogged() {
        try (LogCapture log = LogCapture.of(ScheduledTask.class)) {
            ScheduledTask handle = timer.schedule(record, (previous, now) -> {
                if (previous > 0) {
                    throw new IllegalStateException("no next time");
                }
                return 5;
            });

            timer.advance(100);

            assertEquals(List.of(5L), runs);
            assertTrue(handle.isDone());
            assertEquals(0, timer.size());
            assertEquals(1, log.events(Level.WARN).size());
            assertEquals("no next time", log.events(Level.WARN).get(0).getThrowableProxy().getMessage());
        }
    }

    @Test
    void cancelFromInsideTheCallbackStopsItsLaterRuns() {
        AtomicReference<ScheduledTask> self = new AtomicReference<>();
        List<Boolean> cancelled = new ArrayList<>();
        self.set(timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            if (runs.size() == 3) {
                cancelled.add(self.get().cancel());
                cancelled.add(self.get().cancel());
            }
        }, 10, 10));

        timer.advance(1_000);

        assertEquals(List.of(10L, 20L, 30L), runs);
        assertEquals(List.of(true, false), cancelled, "the run in progress does not count as done: the first cancel wins");
        assertTrue(self.get().isCancelled());
        assertTrue(self.get().isDone());
        assertEquals(0, timer.size());
    }

    @Test
    void cancelBetweenTheRunAndTheReAddStopsIt() {
        AtomicReference<ScheduledTask> self = new AtomicReference<>();
        // the schedule is asked after the run and before the re-add: cancel right there
        self.set(timer.schedule(record, (previous, now) -> {
            if (previous == 10) {
                assertTrue(self.get().cancel());
            }
            return previous == now && runs.isEmpty() ? 10 : previous + 10;
        }));

        timer.advance(1_000);

        assertEquals(List.of(10L), runs);
        assertTrue(self.get().isCancelled());
        assertEquals(0, timer.size());
    }

    @Test
    void cancelFromAnotherThreadDuringTheRunLetsTheRunFinishAndStopsTheRest() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ScheduledTask handle = timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            running.countDown();
            await(release);
            runs.add(-timer.nowMs()); // the run finished
        }, 10, 10);
        AtomicReference<Boolean> cancelled = new AtomicReference<>();
        Thread canceller = new Thread(() -> {
            await(running);
            cancelled.set(handle.cancel());
            release.countDown();
        });
        canceller.start();

        timer.advance(1_000);
        canceller.join();

        assertEquals(List.of(10L, -10L), runs);
        assertTrue(cancelled.get());
        assertTrue(handle.isCancelled());
        assertEquals(0, timer.size());
    }

    @Tag("stress")
    @RepeatedTest(200)
    void cancelsRacingTheRunsAndReAddsOfAFixedRateWinOnceAndStopItWithinTheRunUnderWay() throws Exception {
        try (MockTimer raced = new MockTimer()) {
            AtomicInteger ran = new AtomicInteger();
            ScheduledTask handle = raced.scheduleAtFixedRate(ran::incrementAndGet, 0, 1);
            CountDownLatch lineUp = new CountDownLatch(1);
            AtomicInteger wins = new AtomicInteger();
            AtomicInteger ranAtWin = new AtomicInteger(-1);
            List<Thread> cancellers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread thread = new Thread(() -> {
                    await(lineUp);
                    while (ran.get() < 5) {
                        Thread.onSpinWait(); // let it run a few times first
                    }
                    if (handle.cancel()) {
                        ranAtWin.set(ran.get());
                        wins.incrementAndGet();
                    }
                });
                thread.start();
                cancellers.add(thread);
            }
            lineUp.countDown();
            while (!handle.isCancelled()) {
                raced.advance(1); // runs and re-adds, racing the cancels
            }
            for (Thread thread : cancellers) {
                thread.join();
            }
            raced.advance(100);

            assertEquals(1, wins.get());
            assertTrue(ran.get() <= ranAtWin.get() + 1, () -> ran.get() + " runs, " + ranAtWin.get() + " when cancelled");
            assertEquals(0, raced.size());
            assertTrue(handle.isDone());
        }
    }

    @Test
    void callbackThatThrowsKeepsItsScheduleAndEachThrowIsLoggedOnceAtWarn() {
        try (LogCapture log = LogCapture.of(ScheduledTask.class)) {
            ScheduledTask handle = timer.scheduleAtFixedRate(() -> {
                runs.add(timer.nowMs());
                if (runs.size() % 2 == 1) {
                    throw new IllegalStateException("run " + runs.size());
                }
            }, 10, 10);
            ScheduledTask once = timer.schedule(() -> {
                throw new IllegalArgumentException("once");
            }, 25);

            timer.advance(50); // does not throw

            assertEquals(List.of(10L, 20L, 30L, 40L, 50L), runs);
            assertFalse(handle.isDone());
            assertTrue(once.isDone());
            assertEquals(List.of("run 1", "once", "run 3", "run 5"),
                    log.events(Level.WARN).stream().map(e -> e.getThrowableProxy().getMessage()).toList());
        }
    }

    @Test
    void aVirtualMachineErrorIsNotCaughtButOtherErrorsAreLogged() {
        try (LogCapture log = LogCapture.of(ScheduledTask.class)) {
            ScheduledTask assertion = timer.schedule(() -> {
                throw new AssertionError("an ordinary Error");
            }, 5);
            ScheduledTask outOfMemory = timer.schedule(() -> {
                throw new OutOfMemoryError("simulated");
            }, 10);

            OutOfMemoryError thrown = assertThrows(OutOfMemoryError.class, () -> timer.advance(10));

            assertEquals("simulated", thrown.getMessage());
            assertTrue(assertion.isDone());
            assertTrue(outOfMemory.isDone());
            assertEquals(List.of("an ordinary Error"),
                    log.events(Level.WARN).stream().map(e -> e.getThrowableProxy().getMessage()).toList());
        }
    }

    @Test
    void closeStopsRecurringCallbacksAndLogsHowManyWerePending() {
        try (LogCapture log = LogCapture.of(MockTimer.class)) {
            ScheduledTask rate = timer.scheduleAtFixedRate(record, 10, 10);
            timer.scheduleWithFixedDelay(record, 10, 10);
            timer.schedule(record, (previous, now) -> previous + 7);
            timer.schedule(record, 500);
            timer.advance(30);
            int ranBeforeClose = runs.size();
            assertEquals(4, timer.size());

            timer.close();
            timer.close();

            assertEquals(List.of("MockTimer closed: 4 pending tasks dropped"), log.messages(Level.INFO), "once");
            assertEquals(0, timer.size());
            timer.advance(1_000);
            assertEquals(ranBeforeClose, runs.size());
            assertFalse(rate.isDone(), "dropped, not done");
            assertThrows(IllegalStateException.class, () -> timer.scheduleAtFixedRate(record, 1, 1));
            assertThrows(IllegalStateException.class, () -> timer.schedule(record, 1));
        }
    }

    @Test
    void closeDuringARunEndsThatCallback() {
        ScheduledTask handle = timer.scheduleAtFixedRate(() -> {
            runs.add(timer.nowMs());
            timer.close();
        }, 10, 10);

        timer.advance(100);

        assertEquals(List.of(10L), runs);
        assertTrue(handle.isDone());
        assertFalse(handle.isCancelled());
    }

    @Test
    void sizeCountsARecurringCallbackUntilItIsCancelled() {
        ScheduledTask first = timer.scheduleAtFixedRate(record, 0, 10);
        ScheduledTask second = timer.scheduleWithFixedDelay(record, 0, 10);
        timer.advance(25);
        assertEquals(2, timer.size());

        first.cancel();
        assertEquals(1, timer.size());
        second.cancel();
        assertEquals(0, timer.size());
    }

    @Test
    void badArgumentsAreRefusedWithTheValueInTheMessage() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> timer.schedule(record, -1)).getMessage().contains("-1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> timer.scheduleAtFixedRate(record, 0, 0)).getMessage().contains("0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> timer.scheduleWithFixedDelay(record, 0, -5)).getMessage().contains("-5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> timer.scheduleAtFixedRate(record, -3, 1)).getMessage().contains("-3"));
        timer.advance(10);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> timer.schedule(record, (p, n) -> 9)).getMessage().contains("9 ms"));
        assertThrows(NullPointerException.class, () -> timer.schedule(null, 1));
        assertThrows(NullPointerException.class, () -> timer.schedule(record, (Schedule) null));
        assertEquals(0, timer.size(), "nothing was scheduled");
    }

    @Test
    void fixedRateGridSaturatesInsteadOfOverflowing() {
        assertEquals(Long.MAX_VALUE, RecurringTask.FixedRate.nextOnGrid(Long.MAX_VALUE - 5, 10, Long.MAX_VALUE - 5));
        assertEquals(Long.MAX_VALUE, RecurringTask.FixedRate.nextOnGrid(0, Long.MAX_VALUE, Long.MAX_VALUE - 1) - 0);
        assertEquals(Long.MAX_VALUE, RecurringTask.FixedRate.nextOnGrid(10, Long.MAX_VALUE / 2, Long.MAX_VALUE));
        assertEquals(40, RecurringTask.FixedRate.nextOnGrid(10, 10, 31));
        assertEquals(20, RecurringTask.FixedRate.nextOnGrid(10, 10, 3), "a clock behind the deadline gives the next run");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS), "latch");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
