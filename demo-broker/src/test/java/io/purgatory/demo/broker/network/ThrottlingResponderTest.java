package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.server.Responder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A request's handler time is charged once, and its response carries the throttle, on a manual clock. */
class ThrottlingResponderTest {
    private final AtomicLong now = new AtomicLong();
    private final RequestTimeQuota quota = new RequestTimeQuota(1, 1_000, now::get);
    private final RequestTimeQuota.Client client = quota.newClient();
    private final ConnectionQuota connection = new ConnectionQuota(client, new RequestTimeQuota(1, 1_000, now::get).newClient(),
            new RequestTimeQuota(1, 1_000, now::get).newClient(), Long.MAX_VALUE);
    private final List<AbstractResponse> sent = new ArrayList<>();
    private final Responder capture = capturing(() -> { });

    /** A responder that keeps what it is sent, running {@code whileSending} as it takes each (as a slot serializes it). */
    private Responder capturing(Runnable whileSending) {
        return new Responder() {
            @Override
            public void send(AbstractResponse response) {
                sent.add(response);
                whileSending.run();
            }

            @Override
            public void noResponse() {
            }

            @Override
            public void fail(RuntimeException cause) {
            }

            @Override
            public void awaits(Runnable completeNow) {
            }
        };
    }

    ThrottlingResponderTest() {
        quota.newClient().record(0); // another active client: each gets half the handler, 500 ms a window
    }

    private void advance(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    private static ApiVersionsResponse response() {
        return new ApiVersionsResponse(new ApiVersionsResponseData());
    }

    @Test
    void aResponseSentWhileHandledCarriesTheThrottleItsHandlerTimeGave() {
        ThrottlingResponder responder = new ThrottlingResponder(capture, connection, now::get);
        advance(600);
        responder.send(response());
        assertEquals(200, sent.get(0).throttleTimeMs(), "(600 - 500) / 500 of a 1 s window");
        assertEquals(200, responder.handled(), "no more handler time: the throttle the response carried");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(600), client.rateNanos(), "charged once");
    }

    @Test
    void theHandlerTimeAfterTheThrottleIsSetSerializingTheResponseIsChargedWhenTheHandlerIsDone() {
        Responder serializing = capturing(() -> advance(100)); // the connection's slot serializes the response on the handler thread
        ThrottlingResponder responder = new ThrottlingResponder(serializing, connection, now::get);
        advance(500);
        responder.send(response());
        assertEquals(0, sent.get(0).throttleTimeMs(), "its share exactly, when the throttle was set");

        assertEquals(200, responder.handled(), "(600 - 500) / 500 of a 1 s window: the connection is muted for the serialization too");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(600), client.rateNanos());
    }

    @Test
    void aParkedRequestIsChargedWhenTheHandlerIsDoneAndItsLaterResponseCarriesWhatIsLeft() {
        ThrottlingResponder responder = new ThrottlingResponder(capture, connection, now::get);
        advance(600);
        assertEquals(200, responder.handled());
        advance(150);
        responder.send(response()); // the parked operation completes
        assertEquals(50, sent.get(0).throttleTimeMs());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(600), client.rateNanos(), "charged once, the handler's time only");
    }
}
