package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The callback forms on the real-time timer. Outcomes are awaited with generous limits (CI is a
 * loaded 2-core machine); the only timing assertion is the contract's lower bound: a run never
 * starts before its deadline.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RecurringSystemTimerTest {

    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private final List<SystemTimer> timers = new ArrayList<>();

    @AfterEach
    void closeTimers() {
        timers.forEach(SystemTimer::close);
    }

    @Test
    void callbackRunsOnceOnTheExecutorThreadNotBeforeItsDeadline() {
        SystemTimer timer = timer(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicReference<Long> ranAtMs = new AtomicReference<>();
        long scheduledAtMs = timer.nowMs();

        ScheduledTask handle = timer.schedule(() -> {
            ranAtMs.set(timer.nowMs());
            ranOn.set(Thread.currentThread());
        }, 20);

        assertTrue(handle.deadlineMs() >= scheduledAtMs + 20, () -> handle.deadlineMs() + " ms");
        await().until(handle::isDone);
        await().until(() -> ranOn.get() != null);
        assertTrue(ranAtMs.get() >= handle.deadlineMs(), () -> "ran at " + ranAtMs.get() + " ms, due " + handle.deadlineMs());
        assertNotSame(Thread.currentThread(), ranOn.get());
        assertTrue(ranOn.get().getName().endsWith("-executor"), ranOn.get()::getName);
        assertEquals(0, timer.size());
    }

    @Test
    void fixedRateOnACoarseTickStaysOnItsGridAndNeverRunsEarly() {
        SystemTimer timer = timer(10); // deadlines 15 ms apart are rounded up to 10 ms ticks, one by one
        List<long[]> runs = new CopyOnWriteArrayList<>();
        AtomicReference<ScheduledTask> handle = new AtomicReference<>();
        CountDownLatch scheduled = new CountDownLatch(1);
        handle.set(timer.scheduleAtFixedRate(() -> {
            await(scheduled);
            runs.add(new long[] {handle.get().deadlineMs(), timer.nowMs()});
        }, 0, 15));
        long first = handle.get().deadlineMs();
        scheduled.countDown();

        await().until(() -> runs.size() >= 8);
        handle.get().cancel();

        long previous = Long.MIN_VALUE;
        for (long[] run : runs) {
            long deadline = run[0];
            assertEquals(0, (deadline - first) % 15, () -> "deadline " + deadline + " is off the grid from " + first);
            assertTrue(deadline > previous, "deadlines increase");
            assertTrue(run[1] >= deadline, () -> "ran at " + run[1] + " ms, before its deadline " + deadline);
            previous = deadline;
        }
    }

    @Test
    void closeLogsHowManyWerePendingAndStopsRecurringCallbacks() {
        SystemTimer timer = timer(1);
        AtomicInteger runs = new AtomicInteger();
        try (LogCapture log = LogCapture.of(SystemTimer.class)) {
            for (int i = 0; i < 5; i++) {
                timer.scheduleAtFixedRate(runs::incrementAndGet, 0, 1);
            }
            timer.schedule(runs::incrementAndGet, 60_000);
            await().until(() -> runs.get() >= 20);

            timer.close();

            assertEquals(List.of("Timer " + timerName(timer) + " closed: 6 pending tasks dropped"), log.messages(Level.INFO));
        }
        assertEquals(0, timer.size());
    }

    /**
     * 100,000 recurring callbacks of four kinds, all at once: fixed rates cancelled by two racing
     * threads while they run, fixed delays that cancel themselves on their third run, fixed rates
     * that throw on every run, and schedules that stop after five runs. Every kind must do exactly
     * what it promises, and the timer must end up holding the throwing ones only.
     */
    @Tag("stress")
    @Test
    void hundredThousandRecurringCallbacksEachDoExactlyWhatTheirKindPromises() throws Exception {
        int n = 100_000;
        long periodMs = 500;
        SystemTimer timer = timer(1);
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        AtomicIntegerArray selfCancels = new AtomicIntegerArray(n);
        ScheduledTask[] handles = new ScheduledTask[n];
        int throwers = 0;
        try (LogCapture log = LogCapture.of(ScheduledTask.class)) {
            for (int i = 0; i < n; i++) {
                int id = i;
                long initialDelay = i % periodMs;
                handles[i] = switch (kind(i)) {
                    case CANCELLED_BY_OTHERS -> timer.scheduleAtFixedRate(() -> runs.incrementAndGet(id), initialDelay, periodMs);
                    case CANCELS_ITSELF -> timer.scheduleWithFixedDelay(() -> {
                        if (runs.incrementAndGet(id) == 3 && handles[id].cancel()) {
                            selfCancels.incrementAndGet(id);
                        }
                    }, initialDelay, periodMs);
                    case THROWS -> timer.scheduleAtFixedRate(() -> {
                        runs.incrementAndGet(id);
                        throw new IllegalStateException("task " + id);
                    }, initialDelay, periodMs);
                    case STOPS_AFTER_FIVE -> timer.schedule(() -> runs.incrementAndGet(id),
                            (previous, now) -> runs.get(id) == 5 ? Schedule.STOP : Math.max(previous + periodMs, now + initialDelay));
                };
                if (kind(i) == Kind.THROWS) {
                    throwers++;
                }
            }
            assertEquals(n, timer.size());

            await().until(() -> all(n, i -> runs.get(i) >= (kind(i) == Kind.STOPS_AFTER_FIVE ? 5 : 3)));

            // two threads race to cancel the same callbacks while they keep running
            int[] countsAtCancel = new int[n];
            AtomicInteger cancelWins = new AtomicInteger();
            CountDownLatch lineUp = new CountDownLatch(1);
            List<Thread> cancellers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread thread = new Thread(() -> {
                    await(lineUp);
                    for (int i = 0; i < n; i++) {
                        if (kind(i) == Kind.CANCELLED_BY_OTHERS && handles[i].cancel()) {
                            countsAtCancel[i] = runs.get(i); // only the winner writes: joined below
                            cancelWins.incrementAndGet();
                        }
                    }
                });
                thread.start();
                cancellers.add(thread);
            }
            lineUp.countDown();
            for (Thread thread : cancellers) {
                thread.join();
            }
            int cancelledByOthers = (int) IntStream.range(0, n).filter(i -> kind(i) == Kind.CANCELLED_BY_OTHERS).count();
            assertEquals(cancelledByOthers, cancelWins.get(), "exactly one cancel wins per callback");

            int stillRecurring = throwers;
            await().until(() -> timer.size() == stillRecurring);
            // the throwing ones share the period: two more runs each, and any stopped callback would have run again
            int[] throwerRuns = new int[n];
            for (int i = 0; i < n; i++) {
                throwerRuns[i] = runs.get(i);
            }
            await().until(() -> all(n, i -> kind(i) != Kind.THROWS || runs.get(i) >= throwerRuns[i] + 2));

            for (int i = 0; i < n; i++) {
                ScheduledTask handle = handles[i];
                int ran = runs.get(i);
                int id = i;
                switch (kind(i)) {
                    case CANCELLED_BY_OTHERS -> {
                        assertTrue(ran <= countsAtCancel[i] + 1, () -> "task " + id + " ran " + ran + " times, "
                                + countsAtCancel[id] + " when cancelled: at most the run under way may follow");
                        assertTrue(handle.isCancelled() && handle.isDone());
                    }
                    case CANCELS_ITSELF -> {
                        assertEquals(3, ran, () -> "task " + id);
                        assertEquals(1, selfCancels.get(i), () -> "task " + id);
                        assertTrue(handle.isCancelled());
                    }
                    case THROWS -> assertFalse(handle.isDone(), () -> "task " + id + " keeps its schedule");
                    case STOPS_AFTER_FIVE -> {
                        assertEquals(5, ran, () -> "task " + id);
                        assertTrue(handle.isDone() && !handle.isCancelled());
                    }
                }
            }
            timer.close();
            long thrown = IntStream.range(0, n).filter(i -> kind(i) == Kind.THROWS).mapToLong(runs::get).sum();
            assertEquals(thrown, log.events(Level.WARN).size(), "one WARN per throw");
        }
    }

    private enum Kind { CANCELLED_BY_OTHERS, CANCELS_ITSELF, THROWS, STOPS_AFTER_FIVE }

    /** The throwing kind is rare, so that the log stays small: one task in a thousand. */
    private static Kind kind(int i) {
        if (i % 1000 == 999) {
            return Kind.THROWS;
        }
        return switch (i % 3) {
            case 0 -> Kind.CANCELLED_BY_OTHERS;
            case 1 -> Kind.CANCELS_ITSELF;
            default -> Kind.STOPS_AFTER_FIVE;
        };
    }

    private static boolean all(int n, IntPredicate predicate) {
        return IntStream.range(0, n).allMatch(predicate);
    }

    private SystemTimer timer(long tickMs) {
        SystemTimer timer = new SystemTimer("recurring-test-" + timers.size(), tickMs, 20);
        timers.add(timer);
        return timer;
    }

    private String timerName(SystemTimer timer) {
        return "recurring-test-" + timers.indexOf(timer);
    }

    private static ConditionFactory await() {
        return Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(20));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(60, TimeUnit.SECONDS), "latch");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
