package io.purgatory.demo.client;

/**
 * One run's settings. Immutable, so thread-safe. {@link ClientMain} makes them from the command
 * line and checks them; its options' {@code defaultValue}s are the one place the defaults are set.
 *
 * @param bootstrap the broker to connect to
 * @param topic the topic to produce to
 * @param requests produce requests to send in total; 0 sends until the run is stopped (Ctrl-C)
 * @param rate target requests per second; 0 sends as fast as {@code concurrency} allows
 * @param concurrency most requests in flight (sent, without an outcome yet) at once
 * @param acks the produce requests' acks: -1 (all in-sync replicas), 1 (leader) or 0 (no response)
 * @param timeoutMs the produce requests' {@code timeoutMs}: how long the broker may wait for replicas
 * @param recordSize value size in bytes of the one record in each request
 * @param graceMs how much longer than {@code timeoutMs} the client waits for a response before
 *     counting the request as "no response"; also the limit for each set-up request
 * @param connectTimeoutMs how long the TCP connect may take
 */
record ClientOptions(
        Endpoint bootstrap,
        String topic,
        int requests,
        double rate,
        int concurrency,
        short acks,
        int timeoutMs,
        int recordSize,
        int graceMs,
        int connectTimeoutMs) {

    /** Whether the run sends until it is stopped ({@code requests} 0) rather than a number of requests. */
    boolean untilStopped() {
        return requests == 0;
    }

    /** The most requests the run sends: {@code requests}, or no limit until it is stopped. */
    long requestLimit() {
        return untilStopped() ? Long.MAX_VALUE : requests;
    }

    /** Whether the broker answers the produce requests at all ({@code acks} is not 0). */
    boolean expectsResponses() {
        return acks != 0;
    }

    /** From a send until the client gives up on its response: the request's timeout plus the grace. */
    long responseDeadlineMs() {
        return (long) timeoutMs + graceMs;
    }
}
