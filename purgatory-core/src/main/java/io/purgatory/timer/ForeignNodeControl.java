package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import io.purgatory.internal.NodeControl;
import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.Secrets;

/**
 * The timer's control of foreign nodes (the purgatory's operations, which are their own expiries):
 * registered in {@link Secrets} when {@link TaskHost} (the base of every timer) is loaded, so that only code that reaches
 * into the internal package can add, cancel or read such a node; no method of the node itself does.
 * It adds only nodes that the registered {@link NodeOwner} owns, so a {@link TimerTask} (added by
 * {@link Timer#add}) or a stray subclass of {@link TimerNode} never gets in this way.
 *
 * <p>Thread-safe: stateless; the node operations are those of the node's timer.
 */
final class ForeignNodeControl implements NodeControl<TimerNode, Timer> {

    @Override
    public void add(Timer timer, TimerNode node, long delayMs) {
        NodeOwner<TimerNode, Timer> owner = Secrets.nodeOwner();
        if (owner == null || !owner.owns(node)) {
            throw new IllegalArgumentException("not a node this control adds: " + node);
        }
        if (!(timer instanceof TaskHost host)) {
            throw new IllegalArgumentException("not a timer of this library: " + timer);
        }
        if (TimerNodes.queue(node)) {
            host.start(node, host.deadlineAfter(delayMs));
        }
    }

    @Override
    public boolean cancel(TimerNode node) {
        return Nodes.cancel(node);
    }

    @Override
    public boolean isExpired(TimerNode node) {
        return TimerNodes.state(node) == TimerNodes.EXPIRED;
    }

    @Override
    public boolean isCancelled(TimerNode node) {
        return TimerNodes.state(node) == TimerNodes.CANCELLED;
    }

    @Override
    public long deadlineMs(TimerNode node) {
        TaskHost h = TimerNodes.state(node) == TimerNodes.NEW ? null : Nodes.hostOf(node);
        return h == null ? Long.MAX_VALUE : h.deadlineMsOfTick(TimerNodes.dueTick(node));
    }
}
