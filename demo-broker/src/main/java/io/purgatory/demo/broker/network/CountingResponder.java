package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.Responder;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A {@link Responder} that counts the error codes of the response it passes on in
 * {@link BrokerStats}.
 *
 * <p>Thread-safe: immutable; the responder it wraps and {@link BrokerStats} are thread-safe.
 */
final class CountingResponder implements Responder {
    private final ApiKeys api;
    private final Responder responder;
    private final BrokerStats stats;

    CountingResponder(ApiKeys api, Responder responder, BrokerStats stats) {
        this.api = api;
        this.responder = responder;
        this.stats = stats;
    }

    @Override
    public void send(AbstractResponse response) {
        stats.onResponse(api, response.errorCounts());
        responder.send(response);
    }

    @Override
    public void noResponse() {
        responder.noResponse();
    }

    @Override
    public void fail(RuntimeException cause) {
        responder.fail(cause);
    }

    @Override
    public void awaits(Runnable completeNow) {
        responder.awaits(completeNow);
    }
}
