package io.purgatory.demo.broker.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A {@link Responder} that records what a handler did with it, for the handlers' unit tests.
 * Thread-safe: a parked operation answers from another thread; the lists are copy-on-write and
 * the flags volatile.
 */
final class RecordingResponder implements Responder {
    final List<AbstractResponse> sent = new CopyOnWriteArrayList<>();
    final List<RuntimeException> failures = new CopyOnWriteArrayList<>();
    final List<Runnable> awaited = new CopyOnWriteArrayList<>();
    volatile boolean noResponse;

    @Override
    public void send(AbstractResponse response) {
        sent.add(response);
    }

    @Override
    public void noResponse() {
        noResponse = true;
    }

    @Override
    public void fail(RuntimeException cause) {
        failures.add(cause);
    }

    @Override
    public void awaits(Runnable completeNow) {
        awaited.add(completeNow);
    }

    /** How many of send, noResponse and fail were called: a handler calls exactly one, once. */
    int answers() {
        return sent.size() + failures.size() + (noResponse ? 1 : 0);
    }
}
