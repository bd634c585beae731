package io.purgatory.demo.client;

/**
 * One run's settings. Immutable; {@link ClientMain} checks the values a user gives, and
 * {@link #defaults(Endpoint)} gives the command line's defaults (for tests and embedding).
 *
 * @param bootstrap the broker to connect to
 * @param topic the topic to produce to
 * @param requests produce requests to send in total
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

    static final String DEFAULT_TOPIC = "demo";
    static final int DEFAULT_REQUESTS = 2000;
    static final double DEFAULT_RATE = 200;
    static final int DEFAULT_CONCURRENCY = 500;
    static final short DEFAULT_ACKS = -1;
    static final int DEFAULT_TIMEOUT_MS = 1000;
    static final int DEFAULT_RECORD_SIZE = 100;
    static final int DEFAULT_GRACE_MS = 5000;
    static final int DEFAULT_CONNECT_TIMEOUT_MS = 5000;

    static ClientOptions defaults(Endpoint bootstrap) {
        return new ClientOptions(bootstrap, DEFAULT_TOPIC, DEFAULT_REQUESTS, DEFAULT_RATE, DEFAULT_CONCURRENCY, DEFAULT_ACKS,
                DEFAULT_TIMEOUT_MS, DEFAULT_RECORD_SIZE, DEFAULT_GRACE_MS, DEFAULT_CONNECT_TIMEOUT_MS);
    }

    ClientOptions withLoad(int requests, double rate, int concurrency) {
        return new ClientOptions(bootstrap, topic, requests, rate, concurrency, acks, timeoutMs, recordSize, graceMs, connectTimeoutMs);
    }

    ClientOptions withAcks(short acks, int timeoutMs) {
        return new ClientOptions(bootstrap, topic, requests, rate, concurrency, acks, timeoutMs, recordSize, graceMs, connectTimeoutMs);
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
