package io.purgatory.demo.broker.coordinator;

/**
 * An offset a group committed for one partition. Immutable.
 *
 * @param offset the next offset the group will read
 * @param leaderEpoch the leader epoch the client saw, or -1
 * @param metadata the client's metadata string (bounded by {@code offset.metadata.max.bytes}), never null
 * @param commitTimestampMs when the coordinator recorded it
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {
}
