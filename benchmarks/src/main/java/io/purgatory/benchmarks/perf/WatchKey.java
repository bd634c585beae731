package io.purgatory.benchmarks.perf;

import org.apache.kafka.server.purgatory.DelayedOperationKey;

/**
 * A watch key, say a partition. It implements Kafka's {@link DelayedOperationKey} so that both
 * purgatories hash and compare the very same objects. Immutable, so thread-safe.
 */
record WatchKey(int id) implements DelayedOperationKey {

    @Override
    public String keyLabel() {
        return "key-" + id;
    }
}
