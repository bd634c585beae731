package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The public API of DESIGN.md, written out against its exact names and signatures: if this class
 * compiles and passes, code written against the contract compiles too.
 */
class ApiContractTest {

    static final class NoOp extends DelayedOperation {
        NoOp(long delayMs) {
            super(delayMs);
        }

        @Override public boolean tryComplete() {
            return false;
        }

        @Override public void onComplete() {
        }

        @Override public void onExpiration() {
        }
    }

    @Test
    void timerApiHasTheDesignedSignatures() {
        TimerTask task = new TimerTask(5) {
            @Override public void run() {
            }
        };
        long delay = task.delayMs();
        boolean cancelled = task.cancel();
        boolean isCancelled = task.isCancelled();
        assertEquals(5, delay);
        assertTrue(cancelled && isCancelled);

        try (Timer system = new SystemTimer("api-a"); Timer tuned = new SystemTimer("api-b", 1, 64)) {
            system.add(task); // cancelled before add: ignored
            int size = system.size() + tuned.size();
            assertEquals(0, size);
        }
        MockTimer mock = new MockTimer();
        mock.advance(10);
        assertEquals(10, mock.nowMs());
        mock.close();
    }

    @Test
    void purgatoryApiHasTheDesignedSignatures() {
        try (DelayedOperationPurgatory<NoOp> byName = new DelayedOperationPurgatory<>("api-c");
                DelayedOperationPurgatory<NoOp> built = DelayedOperationPurgatory.<NoOp>builder("api-d")
                        .timer(new MockTimer()).purgeInterval(10).reaperEnabled(false).build()) {
            NoOp op = new NoOp(1000);
            NoOp atPosition = new NoOp(1000);
            NoOp atPositions = new NoOp(1000);
            Collection<?> keys = List.of("k");
            boolean completedNow = built.tryCompleteElseWatch(op, keys);
            boolean completedAtPosition = built.tryCompleteElseWatchPosition(atPosition, "p", 5L);
            boolean completedAtPositions = built.tryCompleteElseWatchPositions(atPositions, Map.of("p", 7L, "q", 1L));
            int completed = built.checkAndComplete("k");
            int advanced = built.advance("p", 6L);
            long watched = built.watched();
            long delayed = built.numDelayed();
            int cancelled = built.cancelForKey("k", "why");
            boolean forced = atPosition.forceComplete();
            boolean cancelledOne = atPositions.cancel();
            Completion how = op.completion();
            Object reason = op.cancelReason();
            boolean isCancelled = op.isCancelled();
            boolean isCompleted = op.isCompleted();
            long delayMs = op.delayMs();

            assertFalse(completedNow || completedAtPosition || completedAtPositions);
            assertEquals(0, completed + advanced);
            assertEquals(4, watched);
            assertEquals(3, delayed);
            assertEquals(1, cancelled);
            assertTrue(forced && cancelledOne && isCancelled && isCompleted);
            assertEquals(Completion.CANCELLED, how);
            assertEquals("why", reason);
            assertEquals(1000, delayMs);
            assertEquals(0, byName.numDelayed());
            assertEquals(3, built.metrics().completed());
        }
    }

    @Test
    void classesAndMethodsAreFinalWhereTheDesignSaysSo() throws NoSuchMethodException {
        assertTrue(Modifier.isFinal(SystemTimer.class.getModifiers()));
        assertTrue(Modifier.isFinal(MockTimer.class.getModifiers()));
        assertTrue(Modifier.isFinal(DelayedOperationPurgatory.class.getModifiers()));
        assertTrue(Modifier.isAbstract(TimerTask.class.getModifiers()));
        assertTrue(Modifier.isAbstract(DelayedOperation.class.getModifiers()));
        for (String name : List.of("forceComplete", "cancel", "isCompleted", "isCancelled", "completion", "cancelReason", "delayMs")) {
            Method m = DelayedOperation.class.getMethod(name);
            assertTrue(Modifier.isFinal(m.getModifiers()), name);
        }
        for (String name : List.of("delayMs", "isCancelled")) {
            Method m = TimerTask.class.getMethod(name);
            assertTrue(Modifier.isFinal(m.getModifiers()), name);
        }
        assertTrue(Modifier.isProtected(TimerTask.class.getDeclaredConstructor(long.class).getModifiers()));
        assertTrue(Modifier.isProtected(DelayedOperation.class.getDeclaredConstructor(long.class).getModifiers()));
    }
}
