package io.purgatory.demo.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A connection's shares of the handlers' time and of the link's each way, on a manual clock. */
class ConnectionQuotaTest {
    private static final long LINK_BYTES_PER_SECOND = 1_000_000;

    private final AtomicLong now = new AtomicLong(987_654_321L);
    private final RequestTimeQuota handlers = new RequestTimeQuota(1, 1_000, now::get);
    private final RequestTimeQuota in = new RequestTimeQuota(1, 1_000, now::get);
    private final RequestTimeQuota out = new RequestTimeQuota(1, 1_000, now::get);

    /** A connection whose shares are never passed in a test: its own handlers and an unbounded link. */
    static ConnectionQuota unlimited() {
        return new ConnectionQuota(new RequestTimeQuota(1, 1_000, System::nanoTime).newClient(),
                new RequestTimeQuota(1, 1_000, System::nanoTime).newClient(), new RequestTimeQuota(1, 1_000, System::nanoTime).newClient(),
                Long.MAX_VALUE);
    }

    private ConnectionQuota connection() {
        return new ConnectionQuota(handlers.newClient(), in.newClient(), out.newClient(), LINK_BYTES_PER_SECOND);
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aConnectionWhoseAnswersPassItsShareOfTheLinkIsThrottledAtItsNextRequest() {
        ConnectionQuota light = connection();
        ConnectionQuota bigAnswers = connection();
        assertEquals(0, light.recordHandlerTime(ms(1)));
        assertEquals(0, bigAnswers.recordHandlerTime(ms(1)), "two connections: half the link each, 500 ms a window");

        bigAnswers.recordWrite(ms(1), 600_000); // 600 ms of a 1 MB/s link
        assertEquals(0, bigAnswers.throttleMs(), "a write throttles nothing by itself");

        assertEquals(200, bigAnswers.recordHandlerTime(0), "(600 - 500) / 500 of a 1 s window, though its handler time is tiny");
        assertEquals(0, light.recordHandlerTime(ms(1)), "the light connection is not throttled for it");
        now.addAndGet(ms(50));
        assertEquals(150, bigAnswers.throttleMs());
    }

    @Test
    void aConnectionWhoseRequestsPassItsShareOfTheLinkInboundIsThrottledAndTheLinkIsFullDuplex() {
        ConnectionQuota reader = connection();
        ConnectionQuota bigRequests = connection();
        reader.recordHandlerTime(0);
        bigRequests.recordHandlerTime(0);
        reader.recordWrite(0, 500_000); // its share of the link outbound exactly

        bigRequests.recordRead(700_000); // 700 ms of the link inbound
        assertEquals(400, bigRequests.recordHandlerTime(0), "(700 - 500) / 500 of the window");
        assertEquals(0, reader.recordHandlerTime(0), "what comes in takes nothing from what goes out");
    }

    @Test
    void theThrottleIsTheLongestOfTheShares() {
        ConnectionQuota other = connection();
        ConnectionQuota both = connection();
        other.recordHandlerTime(0);
        both.recordWrite(0, 700_000); // 700 ms of the link: (700 - 500) / 500 of the window

        assertEquals(800, both.recordHandlerTime(ms(900)), "900 ms of handler time: (900 - 500) / 500, longer than the link's 400");
        assertEquals(800, both.throttleMs());
    }

    @Test
    void aLinkWithoutARateIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ConnectionQuota(handlers.newClient(), in.newClient(), out.newClient(), 0));
    }
}
