package io.purgatory.timer;

import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import org.jspecify.annotations.Nullable;

/**
 * What a node does, decided by this package from the node's class: a {@link TimerTask} runs and
 * names its timer itself; any other node that is added to a timer is a foreign one (an operation,
 * its own expiry), run by the {@link NodeOwner} registered in the internal package; a list's
 * sentinel is never due. The node ({@link TimerNode}, in {@code io.purgatory.internal}) holds the
 * data and the state machine only, so that nothing here is a method a subclass could see.
 *
 * <p>Thread-safe: stateless; each call is the node's timer's.
 */
final class Nodes {

    private Nodes() {
    }

    /**
     * What the timer calls when the node is due and was not cancelled, on its expiry thread (a
     * {@link SystemTimer}'s executor or reaper, the caller of {@link MockTimer#advance}).
     */
    static void runDue(TimerNode node) {
        if (node instanceof TimerTask task) {
            task.run();
        } else {
            foreignOwner(node).runDue(node);
        }
    }

    /** The timer this node was added to, as its host, or null before it was added. */
    static @Nullable TaskHost hostOf(TimerNode node) {
        if (node instanceof TimerTask task) {
            return task.host();
        }
        return foreignOwner(node).timerOf(node) instanceof TaskHost host ? host : null;
    }

    /** Whether the timer puts this node back after it runs; only the timer's own recurring tasks do. */
    static boolean recurs(TimerNode node) {
        return node instanceof RecurringTask;
    }

    /**
     * Takes a due node for running: SCHEDULED to EXPIRED, or to FIRING if it {@linkplain #recurs recurs}.
     *
     * @return false if the node was cancelled first (it must then not run)
     */
    static boolean fire(TimerNode node) {
        return TimerNodes.transition(node, TimerNodes.SCHEDULED, recurs(node) ? TimerNodes.FIRING : TimerNodes.EXPIRED);
    }

    /**
     * Cancels the node: removes it from its timer so that it never runs; a node not yet added is
     * marked so that adding it later does nothing. O(1).
     *
     * @return true if this call cancelled it; false if it had already run, started to run, or been cancelled
     */
    static boolean cancel(TimerNode node) {
        while (true) {
            int s = TimerNodes.state(node);
            if (s == TimerNodes.EXPIRED || s == TimerNodes.CANCELLED) {
                return false;
            }
            if (TimerNodes.transition(node, s, TimerNodes.CANCELLED)) {
                if (s != TimerNodes.NEW) {
                    TaskHost host = hostOf(node);
                    assert host != null; // a node leaves NEW only once added to a host
                    host.cancelled(node, s);
                } else if (node instanceof TimerTask task && task.claimedWhileNew()) {
                    TaskHost host = task.host();
                    assert host != null; // claimed: added to a host
                    host.cancelled(node, TimerNodes.QUEUED); // a TimerTask its timer has claimed: queued
                }
                return true;
            }
        }
    }

    private static NodeOwner<TimerNode, Timer> foreignOwner(TimerNode node) {
        NodeOwner<TimerNode, Timer> owner = Secrets.nodeOwner();
        if (owner == null || node instanceof TaskList) {
            throw new IllegalStateException("not a node the timer runs: " + node);
        }
        return owner;
    }
}
