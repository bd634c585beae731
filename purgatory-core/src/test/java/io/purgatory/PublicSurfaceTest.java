package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.SystemTimer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nothing public can break the purgatory's promises: no public call leaves a watched operation
 * without its expiry or its exactly-once completion, no public hook corrupts a timer, and what the
 * metrics hand out is read-only. Also that the builder reads as the README writes it.
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

            assertEquals(1, op.completions.get(), "the client is answered");
            assertEquals(0, purgatory.numDelayed());
            assertFalse(op.cancel(), "once");
            timer.advance(100);
            assertEquals(1, op.completions.get());
            assertEquals(0, op.expirations.get());
        }
    }

    @Test
    void aSubclassCannotReplaceTheCancellationThatCompletionReliesOn() throws NoSuchMethodException {
        Method cancel = DelayedOperation.class.getMethod("cancel");
        assertEquals(DelayedOperation.class, cancel.getDeclaringClass());
        assertTrue(Modifier.isFinal(cancel.getModifiers()));
        for (String name : List.of("run", "forceComplete", "isCompleted", "isCancelled", "delayMs")) {
            assertTrue(Modifier.isFinal(DelayedOperation.class.getMethod(name).getModifiers()), name);
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
