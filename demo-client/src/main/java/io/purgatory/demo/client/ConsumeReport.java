package io.purgatory.demo.client;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What a consumer saw, for the summary. Immutable by convention: the histogram is a copy that
 * nobody records into.
 *
 * @param options the consume settings
 * @param setup the versions and start offsets
 * @param elapsedNanos from the first fetch to the end
 * @param records records consumed
 * @param bytes record batch bytes received
 * @param fetchesWithData fetches answered with records
 * @param fetchesEmptyAtMaxWait fetches answered with none after waiting {@code max_wait_ms}
 * @param fetchesEmptyEarly fetches answered with none before {@code max_wait_ms} (the broker
 *     shutting down, say)
 * @param errors fetch errors by name, and "disconnected" for fetches lost with the connection
 * @param endToEndMicros latency from each record's send ({@link ProduceRequests#SENT_AT_HEADER})
 *     to its consumption, in microseconds; empty when the records carry no send time
 * @param nextOffsets where each partition's reading stopped
 * @param disconnect why the connection was lost, or null
 */
record ConsumeReport(
        ConsumeOptions options,
        Handshake.ConsumerSetup setup,
        long elapsedNanos,
        long records,
        long bytes,
        long fetchesWithData,
        long fetchesEmptyAtMaxWait,
        long fetchesEmptyEarly,
        Map<String, Long> errors,
        Histogram endToEndMicros,
        Map<Integer, Long> nextOffsets,
        String disconnect) {
}
