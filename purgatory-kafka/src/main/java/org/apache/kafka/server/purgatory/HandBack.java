package org.apache.kafka.server.purgatory;

import java.util.ArrayList;
import java.util.List;

/**
 * The reason a {@code cancelForKey} gives the core: the operations it takes off the key come back
 * here, not completed, in the order the key watched them. Filled on the calling thread only (core's
 * {@code cancelForKey} completes the operations on its caller's thread), so not thread-safe.
 */
final class HandBack {
    private final List<DelayedOperation> operations = new ArrayList<>();

    void add(DelayedOperation operation) {
        operations.add(operation);
    }

    @SuppressWarnings("unchecked") // every operation a DelayedOperationPurgatory<T> holds is a T
    <T extends DelayedOperation> List<T> operations() {
        return (List<T>) operations;
    }
}
