package io.purgatory.demo.broker.log;

/**
 * The settings a partition's log and its leader follow, as Kafka's {@code LogConfig} holds them:
 * the topic's overrides over the broker's values. Immutable.
 *
 * @param minInsyncReplicas {@code min.insync.replicas}: an {@code acks=-1} produce needs at least
 *     this many in-sync replicas, leader included
 * @param retentionBytes {@code retention.bytes}: bytes of record batches the log keeps (the oldest
 *     batches beyond it are dropped; the newest always stays); {@link Long#MAX_VALUE} for no limit
 * @param maxMessageBytes {@code max.message.bytes}: the largest record batch a produce may append
 */
public record LogConfig(int minInsyncReplicas, long retentionBytes, int maxMessageBytes) {
    public LogConfig {
        if (minInsyncReplicas < 1 || retentionBytes < 1 || maxMessageBytes < 0) {
            throw new IllegalArgumentException("invalid log config " + minInsyncReplicas + ", " + retentionBytes + ", " + maxMessageBytes);
        }
    }
}
