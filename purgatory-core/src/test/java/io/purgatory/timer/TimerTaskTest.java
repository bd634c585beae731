package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TimerTaskTest {

    @ParameterizedTest(name = "delay {0}")
    @ValueSource(longs = {-1, -1_000, Long.MIN_VALUE})
    void negativeDelayIsRejected(long delayMs) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new NoOp(delayMs));
        assertTrue(e.getMessage().contains(Long.toString(delayMs)), e::getMessage);
    }

    @ParameterizedTest(name = "delay {0}")
    @ValueSource(longs = {0, 1, 30_000, Long.MAX_VALUE})
    void delayMsReturnsTheDelayGivenAtConstruction(long delayMs) {
        assertEquals(delayMs, new NoOp(delayMs).delayMs());
    }

    @Test
    void newTaskIsNotCancelled() {
        assertFalse(new NoOp(5).isCancelled());
    }

    @Test
    void cancellingATaskNotYetAddedMarksItCancelledOnce() {
        NoOp task = new NoOp(5);

        assertTrue(task.cancel());
        assertTrue(task.isCancelled());
        assertFalse(task.cancel(), "only the first cancel wins");
        assertTrue(task.isCancelled());
    }

    @Test
    void addedTaskIsNotCancelledUntilCancelSucceeds() {
        MockTimer timer = new MockTimer();
        NoOp task = new NoOp(5);
        timer.add(task);
        assertFalse(task.isCancelled());

        assertTrue(task.cancel());

        assertTrue(task.isCancelled());
    }

    @Test
    void taskThatRanIsNotCancelled() {
        MockTimer timer = new MockTimer();
        NoOp task = new NoOp(0);
        timer.add(task);
        timer.advance(0);

        assertEquals(1, task.runs);
        assertFalse(task.cancel());
        assertFalse(task.isCancelled());
    }

    @Test
    void aCancelledTaskIsIgnoredByAnyTimer() {
        NoOp task = new NoOp(0);
        task.cancel();
        MockTimer first = new MockTimer();
        MockTimer second = new MockTimer();

        first.add(task);
        second.add(task);
        first.advance(1);
        second.advance(1);

        assertEquals(0, task.runs);
    }

    private static final class NoOp extends TimerTask {
        int runs;

        NoOp(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            runs++;
        }
    }
}
