package io.purgatory.demo.broker.network;

/**
 * One connection's shares, as a Kafka client has a request quota and bandwidth quotas: of the
 * request handlers' time (its requests' handler time and the event loop's CPU time writing its
 * responses) and of the network link's time each way (its requests' bytes at the link's rate in,
 * its responses' bytes at the link's rate out; the link is full duplex), so that a client sending
 * large requests or asking for large answers gets its share of the bytes, not all of them. Each is
 * a {@link RequestTimeQuota}, a link's with one "handler". Past any share the connection is
 * throttled for the longest of the throttles, as Kafka throttles a request for the largest of the
 * quotas it violates.
 *
 * <p>Thread-safe: the three clients are thread-safe, the rest is final.
 */
public final class ConnectionQuota {
    private final RequestTimeQuota.Client handlers;
    private final RequestTimeQuota.Client in;
    private final RequestTimeQuota.Client out;
    private final double linkNanosPerByte;

    /**
     * A new connection's shares.
     *
     * @param handlers the connection as a client of the handlers' time
     * @param in the connection as a client of the link's time inbound, its requests
     * @param out the connection as a client of the link's time outbound, its responses
     * @param linkBytesPerSecond the link's rate each way: that many bytes take it a second
     */
    public ConnectionQuota(RequestTimeQuota.Client handlers, RequestTimeQuota.Client in, RequestTimeQuota.Client out, long linkBytesPerSecond) {
        if (linkBytesPerSecond < 1) {
            throw new IllegalArgumentException("the link's rate must be positive: " + linkBytesPerSecond);
        }
        this.handlers = handlers;
        this.in = in;
        this.out = out;
        this.linkNanosPerByte = 1e9 / linkBytesPerSecond;
    }

    /**
     * Records that a request of this connection held a handler thread for {@code nanos}.
     *
     * @return how long the connection is throttled from now, in milliseconds (0: not)
     */
    long recordHandlerTime(long nanos) {
        return Math.max(handlers.record(nanos), Math.max(in.record(0), out.record(0)));
    }

    /** Records that the event loop spent {@code cpuNanos} writing {@code bytes} of this connection's responses. */
    void recordWrite(long cpuNanos, long bytes) {
        handlers.recordNetwork(cpuNanos);
        out.recordNetwork((long) (bytes * linkNanosPerByte));
    }

    /** Records that {@code bytes} of a request of this connection were read. */
    void recordRead(long bytes) {
        in.recordNetwork((long) (bytes * linkNanosPerByte));
    }

    /** How much longer the connection is throttled, in milliseconds (0: not). */
    long throttleMs() {
        return Math.max(handlers.throttleMs(), Math.max(in.throttleMs(), out.throttleMs()));
    }

    /** The connection's cost class by its use of the handlers ({@link RequestTimeQuota.Client#costClass()}). */
    int costClass() {
        return handlers.costClass();
    }
}
