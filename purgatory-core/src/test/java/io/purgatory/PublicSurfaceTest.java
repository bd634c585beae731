package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.TimerTask;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nothing public can break the purgatory's promises: no public call leaves a watched operation
 * without its expiry or its exactly-once completion, no public hook corrupts a timer, and what the
 * metrics hand out is read-only. Also that the builder reads as docs/guide.md writes it.
 */
class PublicSurfaceTest {

    @Test
    void cancellingAWatchedOperationCompletesItInsteadOfStrandingIt() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("PublicSurfaceTest-cancel").timer(timer).reaperEnabled(false).build()) {
            TestOperation op = new TestOperation(100);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));

            assertTrue(op.cancel(), "cancel completes it");
            assertEquals(Completion.CANCELLED, op.completion());
            assertNull(op.cancelReason(), "no reason given");

            assertEquals(1, op.completions.get(), "the client is answered");
            assertEquals(0, purgatory.numDelayed());
            assertFalse(op.cancel(), "once");
            timer.advance(100);
            assertEquals(1, op.completions.get());
            assertEquals(0, op.expirations.get());
        }
    }

    @Test
    void aSubclassCannotReplaceTheCompletionMethods() throws NoSuchMethodException {
        for (String name : List.of("cancel", "forceComplete", "isCompleted", "isCancelled", "completion", "cancelReason", "delayMs")) {
            Method m = DelayedOperation.class.getMethod(name);
            assertEquals(DelayedOperation.class, m.getDeclaringClass(), name);
            assertTrue(Modifier.isFinal(m.getModifiers()), name);
        }
        assertTrue(Modifier.isFinal(DelayedOperation.class.getMethod("cancel", Object.class).getModifiers()));
    }

    @Test
    void nothingPublicExpiresAnOperationEarlyOrTakesItOffItsTimer() {
        assertFalse(Runnable.class.isAssignableFrom(DelayedOperation.class), "an operation is not a Runnable anyone can run");
        assertFalse(TimerTask.class.isAssignableFrom(DelayedOperation.class), "an operation is not a task anyone can add or cancel");
        List<String> publicMethods = Arrays.stream(DelayedOperation.class.getMethods()).map(Method::getName).toList();
        assertFalse(publicMethods.contains("run"), "run() is public: " + publicMethods);
        List<String> protectedMethods = Arrays.stream(DelayedOperation.class.getDeclaredMethods())
                .filter(m -> Modifier.isProtected(m.getModifiers())).map(Method::getName).toList();
        assertEquals(List.of(), protectedMethods, "a subclass sees no timer hook either");
    }

    @Test
    void cancellingWithAReasonCompletesAsCancelledAndOnCompleteReadsTheReason() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("PublicSurfaceTest-reason").timer(timer).reaperEnabled(false).build()) {
            TestOperation op = new TestOperation(100);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));

            assertTrue(op.cancel("shutting down"));

            assertEquals(Completion.CANCELLED, op.completionSeenByOnComplete);
            assertEquals("shutting down", op.reasonSeenByOnComplete);
            assertTrue(op.isCancelled());
            assertFalse(op.cancel("again"), "once");
            assertFalse(op.forceComplete());
            assertEquals("shutting down", op.cancelReason(), "the first reason stands");
        }
    }

    @Test
    void timersExposeNoHookThatWouldCorruptThem() {
        for (Class<?> timer : List.of(SystemTimer.class, MockTimer.class)) {
            List<String> publicMethods = Arrays.stream(timer.getMethods()).map(Method::getName).toList();
            assertFalse(publicMethods.contains("cancelled"), timer.getSimpleName() + " exposes cancelled(TimerTask, int)");
        }
    }

    @Test
    void expiryLatenessIsReadOnlyForUsers() {
        List<String> publicMethods = Arrays.stream(LatencyHistogram.class.getMethods()).map(Method::getName).toList();
        assertFalse(publicMethods.contains("record"));
        assertEquals(0, LatencyHistogram.class.getConstructors().length, "no public constructor");
    }

    @Test
    void theBuilderNeedsNoTypeWitness() {
        try (MockTimer timer = new MockTimer()) {
            DelayedOperationPurgatory<TestOperation> purgatory =
                    DelayedOperationPurgatory.builder("PublicSurfaceTest-builder").timer(timer).build();
            purgatory.close();
            assertEquals("PublicSurfaceTest-builder", purgatory.name());
        }
    }
}
