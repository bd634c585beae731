package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Manual time: every outcome here is deterministic, so every assertion is exact. */
class MockTimerTest {

    private final MockTimer timer = new MockTimer();
    /** Names of the tasks in the order they ran. */
    private final List<String> ran = new ArrayList<>();

    @Test
    void theDurationFormsScheduleInWholeMilliseconds() {
        timer.schedule(() -> ran.add("once"), Duration.ofNanos(10_999_999));
        ScheduledTask rate = timer.scheduleAtFixedRate(() -> ran.add("rate"), Duration.ofMillis(5), Duration.ofMillis(10));
        ScheduledTask delay = timer.scheduleWithFixedDelay(() -> ran.add("delay"), Duration.ZERO, Duration.ofMillis(20));
        assertEquals(0, timer.nowMs());

        timer.advance(Duration.ofMillis(10));

        assertEquals(List.of("delay", "rate", "once"), ran);
        assertEquals(15, rate.deadlineMs());
        assertEquals(20, delay.deadlineMs());
        assertThrows(IllegalArgumentException.class, () -> timer.schedule(() -> { }, Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> timer.advance(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> timer.scheduleAtFixedRate(() -> { }, Duration.ZERO, Duration.ofNanos(999_999)));
        rate.cancel();
        delay.cancel();
    }

    @Test
    void clockStartsAtZeroAndMovesOnlyThroughAdvance() {
        assertEquals(0, timer.nowMs());
        assertEquals(0, timer.size());

        timer.advance(5);
        timer.advance(0);
        timer.advance(37);

        assertEquals(42, timer.nowMs());
    }

    @Test
    void advanceRunsDueTasksInDeadlineOrderOnTheCallingThread() {
        List<Thread> threads = new ArrayList<>();
        for (long delay : new long[] {30, 10, 40, 20}) {
            timer.add(task("t" + delay, delay, t -> threads.add(Thread.currentThread())));
        }

        timer.advance(30);

        assertEquals(List.of("t10", "t20", "t30"), ran);
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread(), Thread.currentThread()), threads);
        assertEquals(1, timer.size(), "t40 is not due yet");
    }

    @Test
    void taskRunsWhenTimeReachesItsDeadlineAndNotOneMsBefore() {
        timer.add(task("t", 10));

        timer.advance(9);
        assertEquals(List.of(), ran);

        timer.advance(1);
        assertEquals(List.of("t"), ran);
    }

    @Test
    void deadlineIsCountedFromTheClockAtAdd() {
        timer.advance(100);
        timer.add(task("t", 5));

        timer.advance(4);
        assertEquals(List.of(), ran);
        timer.advance(1);
        assertEquals(List.of("t"), ran);
        assertEquals(105, timer.nowMs());
    }

    @Test
    void zeroDelayTaskRunsOnAdvanceByZero() {
        timer.add(task("now", 0));
        assertEquals(List.of(), ran, "add never runs a task itself");

        timer.advance(0);

        assertEquals(List.of("now"), ran);
    }

    @Test
    void tasksWithTheSameDeadlineRunInAddOrder() {
        timer.add(task("a", 7));
        timer.add(task("x", 3));
        timer.add(task("b", 7));
        timer.advance(2);
        timer.add(task("c", 5)); // deadline 7 as well
        timer.add(task("d", 5));

        timer.advance(10);

        assertEquals(List.of("x", "a", "b", "c", "d"), ran);
    }

    @Test
    void taskAddedDuringAdvanceRunsInTheSameAdvanceIfItFallsDueByTheTarget() {
        List<Long> clockInChild = new ArrayList<>();
        timer.add(task("parent", 10, t -> {
            timer.add(task("child", 5, c -> clockInChild.add(timer.nowMs())));
            timer.add(task("late", 50));
        }));
        timer.add(task("sibling", 12));

        timer.advance(20);

        assertEquals(List.of("parent", "sibling", "child"), ran);
        assertEquals(List.of(15L), clockInChild, "child's deadline is the parent's deadline + 5");
        assertEquals(1, timer.size(), "late (due at 60) is still pending");
        assertEquals(20, timer.nowMs());
    }

    @Test
    void nowMsInsideARunningTaskIsItsDeadline() {
        List<Long> clockAtRun = new ArrayList<>();
        for (long delay : new long[] {12, 3, 7, 7}) {
            timer.add(task("t" + delay, delay, t -> clockAtRun.add(timer.nowMs())));
        }

        timer.advance(100);

        assertEquals(List.of(3L, 7L, 7L, 12L), clockAtRun);
        assertEquals(100, timer.nowMs());
    }

    @Test
    void taskCancelledBeforeAdvanceNeverRuns() {
        TimerTask cancelled = task("cancelled", 10);
        timer.add(cancelled);
        timer.add(task("kept", 10));

        assertTrue(cancelled.cancel());
        assertEquals(1, timer.size());
        timer.advance(1_000);

        assertEquals(List.of("kept"), ran);
        assertFalse(cancelled.cancel(), "a second cancel does not cancel again");
        assertTrue(cancelled.isCancelled());
        assertEquals(0, timer.size());
    }

    @Test
    void taskCancelledByAnotherTaskInTheSameAdvanceNeverRuns() {
        TimerTask victim = task("victim", 5);
        timer.add(task("canceller", 5, t -> assertTrue(victim.cancel())));
        timer.add(victim);
        timer.add(task("after", 6));

        timer.advance(10);

        assertEquals(List.of("canceller", "after"), ran);
        assertEquals(0, timer.size());
    }

    @Test
    void cancelInsideItsOwnRunReturnsFalse() {
        List<Boolean> result = new ArrayList<>();
        TimerTask[] self = new TimerTask[1];
        self[0] = task("self", 1, t -> result.add(self[0].cancel()));
        timer.add(self[0]);

        timer.advance(1);

        assertEquals(List.of(false), result);
        assertFalse(self[0].isCancelled());
    }

    @Test
    void cancelAfterRunReturnsFalse() {
        TimerTask task = task("t", 1);
        timer.add(task);
        timer.advance(1);

        assertFalse(task.cancel());
        assertFalse(task.isCancelled());
        assertEquals(0, timer.size());
    }

    @Test
    void taskCancelledBeforeAddIsIgnored() {
        TimerTask task = task("t", 1);
        assertTrue(task.cancel());

        timer.add(task);
        timer.advance(10);

        assertEquals(0, timer.size());
        assertEquals(List.of(), ran);
    }

    @Test
    void addingTheSameTaskTwiceThrows() {
        TimerTask task = task("t", 5);
        timer.add(task);

        assertThrows(IllegalStateException.class, () -> timer.add(task));
        assertThrows(IllegalStateException.class, () -> new MockTimer().add(task));
        assertEquals(1, timer.size());

        timer.advance(5);
        assertThrows(IllegalStateException.class, () -> timer.add(task), "nor after it ran");
        assertEquals(List.of("t"), ran);
    }

    @Test
    void sizeCountsTasksNeitherRunNorCancelled() {
        List<TimerTask> tasks = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            TimerTask task = task("t" + i, i * 10L);
            tasks.add(task);
            timer.add(task);
            assertEquals(i, timer.size());
        }

        tasks.get(5).cancel();
        assertEquals(5, timer.size());
        tasks.get(5).cancel();
        assertEquals(5, timer.size(), "a second cancel changes nothing");

        timer.advance(25);
        assertEquals(3, timer.size(), "t1 and t2 ran");

        tasks.get(2).cancel();
        timer.advance(1_000);
        assertEquals(0, timer.size());
        assertEquals(List.of("t1", "t2", "t4", "t5"), ran);
    }

    @Test
    void closeDropsPendingTasksAndIsIdempotent() {
        timer.add(task("a", 1));
        timer.add(task("b", 100));

        timer.close();
        assertEquals(0, timer.size());
        timer.close();
        timer.advance(1_000);

        assertEquals(List.of(), ran);
        assertEquals(0, timer.size());
    }

    @Test
    void addAfterCloseThrows() {
        timer.close();

        assertThrows(IllegalStateException.class, () -> timer.add(task("t", 1)));
        assertEquals(0, timer.size());
    }

    @Test
    void advanceByANegativeAmountThrowsAndLeavesTheClock() {
        timer.advance(3);

        assertThrows(IllegalArgumentException.class, () -> timer.advance(-1));
        assertThrows(IllegalArgumentException.class, () -> timer.advance(Long.MIN_VALUE));
        assertEquals(3, timer.nowMs());
    }

    @Test
    void maximumDelayDoesNotOverflowTheDeadline() {
        timer.advance(10);
        timer.add(task("forever", Long.MAX_VALUE));

        timer.advance(1_000);
        assertEquals(List.of(), ran, "a deadline that wrapped negative would run at once");
        assertEquals(1, timer.size());
        assertEquals(1_010, timer.nowMs());

        timer.advance(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, timer.nowMs(), "the clock saturates");
        assertEquals(List.of("forever"), ran);

        timer.advance(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, timer.nowMs());
    }

    @Test
    void exceptionFromATaskReachesTheCallerOfAdvance() {
        RuntimeException boom = new IllegalStateException("boom");
        timer.add(task("thrower", 10, t -> {
            throw boom;
        }));

        RuntimeException thrown = assertThrows(RuntimeException.class, () -> timer.advance(20));

        assertSame(boom, thrown);
        assertEquals(List.of("thrower"), ran);
    }

    @Test
    void throwingTaskLeavesTheClockAtTheTargetAndTheTasksDueAfterItRunOnTheNextAdvance() {
        // MockTimer.advance javadoc: the exception propagates "with the clock at the target time;
        // the tasks due after it stay due and run on the next call"
        timer.add(task("thrower", 10, t -> {
            throw new IllegalStateException("boom");
        }));
        timer.add(task("sameDeadline", 10));
        timer.add(task("later", 50));
        timer.add(task("afterTarget", 101));

        assertThrows(IllegalStateException.class, () -> timer.advance(100));
        assertEquals(100, timer.nowMs());
        assertEquals(List.of("thrower"), ran);

        timer.advance(0);

        assertEquals(List.of("thrower", "sameDeadline", "later"), ran);
        assertEquals(1, timer.size(), "afterTarget is not due yet");
    }

    @Test
    void tasksAddedFromAnotherThreadRunOnTheNextAdvance() throws InterruptedException {
        Thread adder = new Thread(() -> {
            for (int i = 0; i < 100; i++) {
                timer.add(task("t", i % 10));
            }
        });
        adder.start();
        adder.join();

        timer.advance(9);

        assertEquals(100, ran.size());
        assertEquals(0, timer.size());
    }

    // ---------------------------------------------------------------------------------------------

    private TimerTask task(String name, long delayMs) {
        return task(name, delayMs, t -> { });
    }

    private TimerTask task(String name, long delayMs, Consumer<TimerTask> body) {
        return new TimerTask(delayMs) {
            @Override
            public void run() {
                ran.add(name);
                body.accept(this);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
