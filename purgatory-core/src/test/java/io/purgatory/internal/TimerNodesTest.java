package io.purgatory.internal;

import static io.purgatory.internal.TimerNodes.CANCELLED;
import static io.purgatory.internal.TimerNodes.EXPIRED;
import static io.purgatory.internal.TimerNodes.NEW;
import static io.purgatory.internal.TimerNodes.QUEUED;
import static io.purgatory.internal.TimerNodes.SCHEDULED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A timer node's state machine as the timer drives it through {@link TimerNodes}: a node is queued once,
 * a node cancelled before it was added is never queued, and a timer takes a queued node only if it was
 * not cancelled first.
 */
class TimerNodesTest {

    private final TimerNode node = new TimerNode() { };

    @Test
    void aNewNodeIsQueuedOnceAndASecondAddIsRefused() {
        assertEquals(NEW, TimerNodes.state(node));
        assertTrue(TimerNodes.queue(node));
        assertEquals(QUEUED, TimerNodes.state(node));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TimerNodes.queue(node));
        assertTrue(e.getMessage().startsWith("task already added to a timer"), e.getMessage());
        assertEquals(QUEUED, TimerNodes.state(node));
    }

    @Test
    void aNodeCancelledBeforeItWasAddedIsNotQueued() {
        assertTrue(TimerNodes.transition(node, NEW, CANCELLED));
        assertFalse(TimerNodes.queue(node));
        assertEquals(CANCELLED, TimerNodes.state(node));
    }

    @Test
    void aTransitionFromAnotherStateFailsAndLeavesTheState() {
        assertFalse(TimerNodes.transition(node, QUEUED, SCHEDULED));
        assertEquals(NEW, TimerNodes.state(node));
        assertTrue(TimerNodes.transition(node, NEW, QUEUED));
        assertFalse(TimerNodes.transition(node, NEW, CANCELLED), "no longer NEW");
        assertEquals(QUEUED, TimerNodes.state(node));
    }

    @Test
    void theTimerTakesAQueuedOrClaimedNodeButNotACancelledOne() {
        assertTrue(TimerNodes.queue(node));
        assertTrue(TimerNodes.leaveQueue(node, EXPIRED), "queued");
        assertEquals(EXPIRED, TimerNodes.state(node));

        TimerNode claimed = new TimerNode() { };
        assertTrue(TimerNodes.leaveQueue(claimed, SCHEDULED), "a NEW node its timer claimed");
        assertEquals(SCHEDULED, TimerNodes.state(claimed));

        TimerNode cancelled = new TimerNode() { };
        assertTrue(TimerNodes.queue(cancelled));
        assertTrue(TimerNodes.transition(cancelled, QUEUED, CANCELLED));
        assertFalse(TimerNodes.leaveQueue(cancelled, SCHEDULED), "cancelled first");
        assertEquals(CANCELLED, TimerNodes.state(cancelled));
        assertFalse(TimerNodes.leaveQueue(node, SCHEDULED), "already taken");
        assertEquals(EXPIRED, TimerNodes.state(node));
    }
}
