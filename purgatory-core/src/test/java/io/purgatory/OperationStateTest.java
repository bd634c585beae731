package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.Timer;
import io.purgatory.internal.NodeControl;
import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.TimerNode;
import io.purgatory.timer.TimerTask;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An operation is its own timer node, and still nothing a user's class can reach runs, cancels or
 * adds its expiry: the timer reaches it through the owner registered in the internal package, and
 * neither the operation nor the node has a public or protected member that does. Also the
 * package-private withdrawal that the Kafka bridge builds Kafka's {@code cancelForKey} on.
 */
class OperationStateTest {

    /** A user class that extends TimerNode directly: the timer's node control refuses it. */
    static final class ForeignNode extends TimerNode {
    }

    @Test
    void aParkedOperationIsTheTimersOwnNode() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-node").timer(timer).reaperEnabled(false).build()) {
            TestOperation op = new TestOperation(100);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));
            assertEquals(1, timer.size(), "one node pending: the operation");
            assertEquals(100, Operations.deadlineMs(op), "its deadline is its own node's");

            timer.advance(100);
            assertEquals(Completion.EXPIRED, op.completion());
            assertEquals(1, op.expirations.get());
            assertEquals(0, timer.size());
        }
    }

    @Test
    void aUsersOperationSeesNoTimerHookAndTheNodeHasNoMemberForIt() {
        for (Class<?> c = TestOperation.class; c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (c != TestOperation.class && (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers()))) {
                    assertTrue(c == DelayedOperation.class, "a public or protected method " + m + " above DelayedOperation");
                }
            }
            for (Class<?> nested : c.getDeclaredClasses()) {
                assertFalse(Modifier.isPublic(nested.getModifiers()), "a public nested type " + nested);
            }
            for (Field f : c.getDeclaredFields()) {
                assertFalse(Modifier.isPublic(f.getModifiers()) || Modifier.isProtected(f.getModifiers()), "a visible field " + f);
            }
        }
        assertEquals("io.purgatory.internal", DelayedOperation.class.getSuperclass().getPackageName(),
                "the state above DelayedOperation is in the package documented as not for applications");
        assertEquals("io.purgatory.internal", TimerTask.class.getSuperclass().getPackageName(), "so is the node above TimerTask");
        assertEquals(List.of(), Arrays.stream(TimerNode.class.getDeclaredConstructors())
                .filter(k -> !Modifier.isProtected(k.getModifiers())).map(Object::toString).toList(), "the node's one constructor is protected");
    }

    @Test
    void theNodeControlAddsOperationsOnlyAndCannotExpireOneEarly() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-control").timer(timer).reaperEnabled(false).build()) {
            TestOperation op = new TestOperation(100); // the purgatory class, loaded, registered the operation state's doors
            NodeControl<TimerNode, Timer> control = Secrets.nodeControl();
            NodeOwner<TimerNode, Timer> owner = Secrets.nodeOwner();
            assertNotNull(owner, "the operation state registered itself as the owner of foreign nodes");
            assertThrows(IllegalArgumentException.class, () -> control.add(timer, new ForeignNode(), 0), "a stray node");
            assertThrows(IllegalArgumentException.class, () -> control.add(timer, new TimerTask(0) {
                @Override
                public void run() {
                }
            }, 0), "a task is added by Timer.add");
            purgatory.tryCompleteElseWatch(op, List.of("k"));

            assertThrows(IllegalStateException.class, () -> owner.runDue(op), "not expired yet");
            assertNull(op.completion(), "still waiting");
            timer.advance(100);
            assertEquals(Completion.EXPIRED, op.completion(), "its timer expires it");
        }
    }

    @Test
    void theDelayIsKeptExactlyUpTo24DaysThenRoundedUpToTheSecondAndNeverShortened() {
        assertEquals(0, new TestOperation(0).delayMs());
        assertEquals(Integer.MAX_VALUE, new TestOperation(Integer.MAX_VALUE).delayMs(), "24.8 days, exactly");
        assertEquals(2_147_484_000L, new TestOperation(Integer.MAX_VALUE + 1L).delayMs(), "rounded up to a whole second");
        assertEquals(30L * 24 * 3_600_000, new TestOperation(30L * 24 * 3_600_000).delayMs(), "30 days: whole seconds, exact");
        assertEquals(Long.MAX_VALUE, new TestOperation(Long.MAX_VALUE).delayMs(), "never");
        assertEquals(Long.MAX_VALUE, new TestOperation(Long.MAX_VALUE / 2).delayMs(), "beyond 68 years: never");
    }

    @Test
    void withdrawingAKeyTakesItsOperationsOffEveryListAndTheTimerWithoutCompletingThem() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-withdraw").timer(timer).reaperEnabled(false).build()) {
            TestOperation both = new TestOperation(100);
            TestOperation other = new TestOperation(100);
            TestOperation done = new TestOperation(100);
            purgatory.tryCompleteElseWatch(both, List.of("a", "b"));
            purgatory.tryCompleteElseWatch(other, List.of("b"));
            purgatory.tryCompleteElseWatch(done, List.of("b"));
            done.forceComplete();

            List<OperationState> withdrawn = purgatory.withdrawForKey("b");

            assertEquals(List.of(both, other), withdrawn, "the live ones, in the list's order");
            assertNull(both.completion(), "not completed: the caller answers them");
            assertEquals(0, both.completions.get());
            assertEquals(0, purgatory.numDelayed());
            assertEquals(0, purgatory.checkAndComplete("a"), "gone from its other key's list too");
            both.setReady(true);
            assertEquals(0, purgatory.checkAndComplete("a"));
            timer.advance(100);
            assertEquals(0, both.expirations.get(), "its expiry was cancelled");
            assertEquals(0, other.expirations.get());
            assertTrue(both.forceComplete(), "the caller can still complete it, once");
            assertEquals(1, both.completions.get());
        }
    }
}
