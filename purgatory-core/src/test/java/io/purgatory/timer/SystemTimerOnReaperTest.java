package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SystemTimer.TaskThread#REAPER}: due tasks run on the reaper thread, there is no executor,
 * recurring callbacks keep running, and a task may close its own timer. Outcomes are awaited with
 * generous limits (CI is a loaded 2-core machine); the only timing assertion is the contract's lower
 * bound: a run never starts before its deadline.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SystemTimerOnReaperTest {

    private static ConditionFactory await() {
        return Awaitility.await().atMost(Duration.ofSeconds(90));
    }

    @Test
    void aDueTaskRunsOnTheReaperNotBeforeItsDeadlineAndNoExecutorIsStarted() {
        try (SystemTimer timer = new SystemTimer("on-reaper-once", 1, 20, SystemTimer.TaskThread.REAPER)) {
            AtomicReference<String> ranOn = new AtomicReference<>();
            AtomicReference<Long> ranAtMs = new AtomicReference<>();
            ScheduledTask handle = timer.schedule(() -> {
                ranAtMs.set(timer.nowMs());
                ranOn.set(Thread.currentThread().getName());
            }, 20);

            await().until(() -> ranOn.get() != null);
            assertEquals("on-reaper-once-reaper", ranOn.get());
            assertTrue(ranAtMs.get() >= handle.deadlineMs(), () -> "ran at " + ranAtMs.get() + " ms, due " + handle.deadlineMs());
            assertFalse(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("on-reaper-once-executor")),
                    "no executor thread");
        }
    }

    @Test
    void aRecurringCallbackPutBackFromTheReaperKeepsRunningUntilCancelled() {
        try (SystemTimer timer = new SystemTimer("on-reaper-recurring", 1, 20, SystemTimer.TaskThread.REAPER)) {
            AtomicInteger runs = new AtomicInteger();
            ScheduledTask handle = timer.scheduleAtFixedRate(runs::incrementAndGet, 1, 2);

            await().until(() -> runs.get() >= 5);
            assertEquals(1, timer.size(), "still pending between runs");
            assertTrue(handle.cancel());
            int after = runs.get();
            ScheduledTask marker = timer.schedule(() -> { }, 30);
            await().until(marker::isDone);
            assertTrue(runs.get() <= after + 1, "at most the run under way when it was cancelled");
            assertEquals(0, timer.size());
        }
    }

    @Test
    void aTaskOnTheReaperMayCloseItsOwnTimer() {
        SystemTimer timer = new SystemTimer("on-reaper-close", 1, 20, SystemTimer.TaskThread.REAPER);
        AtomicInteger closedFromTask = new AtomicInteger();
        timer.schedule(() -> {
            timer.close();
            closedFromTask.incrementAndGet();
        }, 1);
        await().until(() -> closedFromTask.get() == 1);
        assertEquals(0, timer.size());
        timer.close(); // idempotent
    }
}
