package io.purgatory.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.TimerTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's TimerTask life cycle on the module's SystemTimer, where a task's first add links the task
 * itself into the wheel and later adds go through entries: whichever way, the task behaves as Kafka's.
 */
class KafkaTimerTaskTest {

    private final SystemTimer timer = new SystemTimer("task-life");

    @AfterEach
    void close() {
        timer.close();
    }

    private static final class Counting extends TimerTask {
        private final AtomicInteger runs = new AtomicInteger();

        Counting(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs.incrementAndGet();
        }
    }

    @Test
    void aTaskIsCancelledUntilAddedAndACancelBeforeTheAddDoesNotStopIt() {
        Counting task = new Counting(0);
        assertTrue(task.isCancelled(), "Kafka: a task not added holds no entry");
        task.cancel();
        timer.add(task);
        assertFalse(task.isCancelled());
        await().atMost(Duration.ofSeconds(10)).until(() -> task.runs.get() == 1);
        assertFalse(task.isCancelled(), "Kafka: a task that ran keeps its entry");
    }

    @Test
    void aCancelledTaskDoesNotRunAndLeavesTheTimer() throws InterruptedException {
        Counting task = new Counting(60_000);
        timer.add(task);
        assertEquals(1, timer.size());
        task.cancel();
        assertTrue(task.isCancelled());
        await().atMost(Duration.ofSeconds(10)).until(() -> timer.size() == 0);
        assertFalse(timer.advanceClock(0));
        assertEquals(0, task.runs.get());
    }

    @Test
    void aTaskAddedAgainWhilePendingRunsOnceForTheLaterAdd() {
        Counting task = new Counting(0);
        Counting marker = new Counting(60_000);
        timer.add(marker);
        timer.add(marker); // the second add replaces the first: the task is pending once
        await().atMost(Duration.ofSeconds(10)).until(() -> timer.size() == 1);
        timer.add(task);
        await().atMost(Duration.ofSeconds(10)).until(() -> task.runs.get() == 1);
        assertEquals(0, marker.runs.get());
    }

    @Test
    void aTaskAddedAgainAfterItRanRunsAgain() throws InterruptedException {
        Counting task = new Counting(0);
        timer.add(task);
        await().atMost(Duration.ofSeconds(10)).until(() -> task.runs.get() == 1);
        timer.add(task);
        await().atMost(Duration.ofSeconds(10)).until(() -> task.runs.get() == 2);
        assertTrue(timer.advanceClock(0), "tasks ran since the last advanceClock");
        await().atMost(Duration.ofSeconds(10)).until(() -> timer.size() == 0);
    }
}
