package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.server.Responder;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A {@link Responder} that charges one request's handler time to its client's
 * {@link RequestTimeQuota} and puts the resulting throttle in the response's
 * {@code throttle_time_ms}, as a Kafka broker does: the handler time runs from the request's turn
 * on a handler thread until its response is sent or, for a request that parks or is refused,
 * until the handler is done with it ({@link #handled()}), whichever comes first. A response sent
 * after that (a parked produce or fetch answered later) carries what is left of the throttle.
 *
 * <p>Thread-safe: the record is made once, by whichever thread sets {@code recorded}; the
 * responder it wraps and the quota are thread-safe.
 */
final class ThrottlingResponder implements Responder {
    private final Responder responder;
    private final RequestTimeQuota.Client client;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final AtomicBoolean recorded = new AtomicBoolean();
    private volatile long throttleMs; // written once, by the thread that set recorded

    /** Starts the clock of one request's handler time, now. */
    ThrottlingResponder(Responder responder, RequestTimeQuota.Client client, LongSupplier nanoClock) {
        this.responder = responder;
        this.client = client;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
    }

    /**
     * The handler is done with the request: records its handler time unless its response did.
     *
     * @return how long the client is throttled from now, in milliseconds (0: not)
     */
    long handled() {
        return recordOnce() ? throttleMs : client.throttleMs();
    }

    /** Records the handler time since the start, unless it was recorded before; whether this call did. */
    private boolean recordOnce() {
        if (!recorded.compareAndSet(false, true)) {
            return false;
        }
        throttleMs = client.record(nanoClock.getAsLong() - startNanos);
        return true;
    }

    @Override
    public void send(AbstractResponse response) {
        long throttle = recordOnce() ? throttleMs : client.throttleMs();
        response.maybeSetThrottleTimeMs((int) Math.min(Integer.MAX_VALUE, throttle));
        responder.send(response);
    }

    @Override
    public void noResponse() {
        recordOnce();
        responder.noResponse();
    }

    @Override
    public void fail(RuntimeException cause) {
        recordOnce();
        responder.fail(cause);
    }

    @Override
    public void awaits(Runnable completeNow) {
        responder.awaits(completeNow);
    }
}
