package io.purgatory.timer;

import io.purgatory.internal.NodeControl;
import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.Secrets;

/**
 * The timer's control of foreign nodes (the purgatory's operations, which are their own expiries):
 * registered in {@link Secrets} when {@link TimerNode} is loaded, so that only code that reaches
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
        if (node.queue()) {
            host.start(node, host.deadlineAfter(delayMs));
        }
    }

    @Override
    public boolean cancel(TimerNode node) {
        return node.cancelNode();
    }

    @Override
    public boolean isExpired(TimerNode node) {
        return node.state() == TimerNode.EXPIRED;
    }

    @Override
    public boolean isCancelled(TimerNode node) {
        return node.state() == TimerNode.CANCELLED;
    }

    @Override
    public long deadlineMs(TimerNode node) {
        TaskHost h = node.state() == TimerNode.NEW ? null : node.hostOf();
        return h == null ? Long.MAX_VALUE : h.deadlineMsOfTick(node.dueTick);
    }
}
