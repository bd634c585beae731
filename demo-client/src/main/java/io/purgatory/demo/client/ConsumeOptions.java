package io.purgatory.demo.client;

/**
 * How the client consumes. Immutable, so thread-safe. {@link ClientMain} makes them from the
 * command line and checks them; its options' {@code defaultValue}s are the defaults.
 *
 * @param minBytes each fetch's {@code min_bytes}: the broker holds it until that much committed
 *     data is there
 * @param maxWaitMs each fetch's {@code max_wait_ms}: the broker answers by then with what it has
 * @param partitionMaxBytes each fetch's {@code partition_max_bytes} (and {@code max_bytes})
 * @param fromEarliest start at each partition's log start; otherwise at its high watermark
 * @param durationMs consume mode alone: how long to consume
 * @param drainMs with the producer: how long, after its last outcome, to go on reading until
 *     every partition is caught up with its high watermark
 */
record ConsumeOptions(int minBytes, int maxWaitMs, int partitionMaxBytes, boolean fromEarliest, long durationMs, long drainMs) {
}
