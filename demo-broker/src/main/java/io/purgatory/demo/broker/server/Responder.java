package io.purgatory.demo.broker.server;

import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Where a request's response goes: the network layer gives one to the API handlers for each
 * request, and a handler calls exactly one of {@link #send}, {@link #noResponse} or {@link #fail}
 * for it, now or later from another thread (a parked produce, fetch or delete-records).
 *
 * <p>Implementations are thread-safe.
 */
public interface Responder {
    /** Sends the response; called once, from any thread. */
    void send(AbstractResponse response);

    /** The request gets no response ({@code acks=0}). */
    void noResponse();

    /**
     * The response could not be built: logs {@code cause} once and closes the connection after
     * the responses before this one are written. Called at most once, instead of the others.
     */
    void fail(RuntimeException cause);

    /**
     * The response waits for a parked operation (a produce, fetch or delete-records): if the
     * connection closes first, or has closed already, the responder runs {@code completeNow}, which
     * completes it at once (its response goes nowhere), so the purgatory does not hold it until its
     * timeout. Called on the thread handling the request, after it parked the operation. (A
     * callback, so the network layer knows nothing of purgatories.)
     */
    void awaits(Runnable completeNow);
}
