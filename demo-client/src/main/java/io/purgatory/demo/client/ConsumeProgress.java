package io.purgatory.demo.client;

/**
 * The consumer's counters at one moment, for the live line. Immutable.
 *
 * @param elapsedNanos time since consuming started
 * @param records records consumed
 * @param fetchesWithData fetches answered with records
 * @param fetchesEmptyAtMaxWait fetches answered with none after waiting {@code max_wait_ms}
 * @param fetchErrors fetches answered with an error, or lost with the connection
 * @param endToEndP50Micros median latency from the record's send to its consumption, -1 if none
 */
record ConsumeProgress(long elapsedNanos, long records, long fetchesWithData, long fetchesEmptyAtMaxWait, long fetchErrors,
                       long endToEndP50Micros) {
    static final ConsumeProgress START = new ConsumeProgress(0, 0, 0, 0, 0, -1);
}
