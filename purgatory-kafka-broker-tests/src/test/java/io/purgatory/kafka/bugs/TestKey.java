package io.purgatory.kafka.bugs;

import org.apache.kafka.server.purgatory.DelayedOperationKey;

/** A watch key by name, as Kafka's keys are: equal labels are the same key. Immutable. */
record TestKey(String keyLabel) implements DelayedOperationKey {
}
