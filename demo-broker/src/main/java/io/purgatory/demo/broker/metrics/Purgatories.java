package io.purgatory.demo.broker.metrics;

import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The purgatories one part of the broker owns (the replica manager's {@code produce},
 * {@code fetch} and {@code delete-records}; the coordinator's {@code rebalance} and
 * {@code heartbeat}), each registered here once, by its name: {@link #metrics()} lists them for the
 * dashboard and {@code /metrics}, and {@link #close()} closes them all, in the order registered. So
 * a new kind of delayed operation is one {@link #create} line in its owner; its metrics and its
 * shutdown come with it.
 *
 * <p>Thread-safe: the list is copy-on-write; its owner registers in its constructor.
 */
public final class Purgatories implements AutoCloseable {
    private final List<DelayedOperationPurgatory<?>> all = new CopyOnWriteArrayList<>();

    /** A new purgatory on the wall clock, with its own timer and reaper, registered under {@code name}. */
    public <T extends DelayedOperation> DelayedOperationPurgatory<T> create(String name) {
        requireFree(name);
        return add(new DelayedOperationPurgatory<>(name));
    }

    /**
     * Registers a purgatory built elsewhere (a test's, on manual time).
     *
     * @throws IllegalArgumentException if one of that name is registered already
     */
    public <T extends DelayedOperation> DelayedOperationPurgatory<T> register(DelayedOperationPurgatory<T> purgatory) {
        requireFree(purgatory.name());
        return add(purgatory);
    }

    private void requireFree(String name) {
        if (all.stream().anyMatch(p -> p.name().equals(name))) {
            throw new IllegalArgumentException("a purgatory named " + name + " is registered already");
        }
    }

    private <T extends DelayedOperation> DelayedOperationPurgatory<T> add(DelayedOperationPurgatory<T> purgatory) {
        all.add(purgatory);
        return purgatory;
    }

    /** Each purgatory's metrics, in the order registered. */
    public List<PurgatoryMetrics> metrics() {
        return all.stream().map(DelayedOperationPurgatory::metrics).toList();
    }

    /** Closes every purgatory, in the order registered: what is parked expires as closed. Idempotent, as each close is. */
    @Override
    public void close() {
        all.forEach(DelayedOperationPurgatory::close);
    }
}
