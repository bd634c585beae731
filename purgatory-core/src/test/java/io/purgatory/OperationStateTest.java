package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.MockTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerNode;
import java.lang.invoke.MethodHandles;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An operation is its own timer node, and still nothing outside this package can run, cancel or
 * add its expiry: the node's control belongs to {@link OperationState} alone. Also the
 * package-private withdrawal that the Kafka bridge builds Kafka's {@code cancelForKey} on.
 */
class OperationStateTest {

    /** A user class that extends TimerNode directly: it gets a control, for its own nodes only, and keeps the Due it is run with. */
    static final class ForeignNode extends TimerNode {
        static final TimerNode.Control CONTROL = TimerNode.Control.of(MethodHandles.lookup());
        private final MockTimer addedTo;
        volatile Due keptDue;

        ForeignNode(MockTimer addedTo) {
            this.addedTo = addedTo;
        }

        @Override
        protected void onDue(Due due) {
            keptDue = due;
        }

        @Override
        protected Timer timer(Due due) {
            return addedTo;
        }
    }

    /** A user's operation that tries to take the control of its nodes for itself, or to fall due early. */
    static final class GreedyOperation extends TestOperation {
        GreedyOperation() {
            super(100);
        }

        static TimerNode.Control takeControl() {
            return TimerNode.Control.of(MethodHandles.lookup());
        }

        void expireEarlyWith(TimerNode.Due due) {
            onDue(due);
        }
    }

    @Test
    void aParkedOperationIsTheTimersOwnNode() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-node").timer(timer).reaperEnabled(false).build()) {
            TestOperation op = new TestOperation(100);
            assertFalse(purgatory.tryCompleteElseWatch(op, List.of("k")));
            assertEquals(1, timer.size(), "one node pending: the operation");
            assertEquals(100, op.deadlineMs(), "its deadline is its own node's");

            timer.advance(100);
            assertEquals(Completion.EXPIRED, op.completion());
            assertEquals(1, op.expirations.get());
            assertEquals(0, timer.size());
        }
    }

    @Test
    void noOtherClassCanTakeTheControlOfAnOperationsNode() {
        assertThrows(IllegalArgumentException.class, GreedyOperation::takeControl, "a subclass of an operation is not the node's direct subclass");
        assertThrows(IllegalArgumentException.class, () -> TimerNode.Control.of(MethodHandles.lookup()), "not a node class");
        assertThrows(IllegalArgumentException.class,
                () -> TimerNode.Control.of(MethodHandles.lookup().in(OperationState.class)),
                "a lookup without private access to OperationState");

    }

    @Test
    void aForeignControlCannotCancelRunOrAddAnOperation() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<TestOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-foreign").timer(timer).reaperEnabled(false).build()) {
            TestOperation parked = new TestOperation(100);
            purgatory.tryCompleteElseWatch(parked, List.of("k"));
            TestOperation fresh = new TestOperation(5);

            assertThrows(IllegalArgumentException.class, () -> ForeignNode.CONTROL.cancel(parked));
            assertThrows(IllegalArgumentException.class, () -> ForeignNode.CONTROL.add(timer, fresh, 0));
            assertThrows(IllegalArgumentException.class, () -> ForeignNode.CONTROL.deadlineMs(parked));

            timer.advance(100);
            assertEquals(Completion.EXPIRED, parked.completion(), "its expiry still ran");
            assertEquals(0, timer.size(), "the fresh operation was never added");
            assertNull(fresh.completion());
        }
    }

    @Test
    void anOperationCannotBeMadeToFallDueEarlyWithATimersDue() {
        try (MockTimer timer = new MockTimer();
             DelayedOperationPurgatory<GreedyOperation> purgatory =
                     DelayedOperationPurgatory.builder("OperationStateTest-due").timer(timer).reaperEnabled(false).build()) {
            ForeignNode foreign = new ForeignNode(timer);
            ForeignNode.CONTROL.add(timer, foreign, 1);
            timer.advance(1);
            assertTrue(foreign.keptDue != null, "the foreign node ran, and kept the Due it was given");
            GreedyOperation op = new GreedyOperation();
            purgatory.tryCompleteElseWatch(op, List.of("k"));

            assertThrows(IllegalStateException.class, () -> op.expireEarlyWith(foreign.keptDue));
            assertThrows(IllegalStateException.class, () -> op.expireEarlyWith(null));
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

            List<TestOperation> withdrawn = purgatory.withdrawForKey("b");

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
