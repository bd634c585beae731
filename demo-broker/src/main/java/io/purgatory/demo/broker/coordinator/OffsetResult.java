package io.purgatory.demo.broker.coordinator;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of an OffsetCommit or an OffsetDelete: one error for the whole request, or one per
 * partition. Immutable when its map is.
 */
public record OffsetResult(Errors groupError, Map<TopicPartition, Errors> partitionErrors) {
    /** The error of one partition of the request. */
    public Errors error(TopicPartition partition) {
        return groupError != Errors.NONE ? groupError : partitionErrors.getOrDefault(partition, Errors.NONE);
    }
}
