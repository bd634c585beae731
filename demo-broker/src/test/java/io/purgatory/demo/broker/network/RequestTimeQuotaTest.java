package io.purgatory.demo.broker.network;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The handler time each client used, its fair share and its throttle, on a manual clock. */
class RequestTimeQuotaTest {
    private static final long WINDOW_MS = 1_000;

    private final AtomicLong now = new AtomicLong(123_456_789L);
    private final RequestTimeQuota quota = new RequestTimeQuota(1, WINDOW_MS, now::get);

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    private void advance(long millis) {
        now.addAndGet(ms(millis));
    }

    @Test
    void aClientAloneHasAllTheHandlersAndIsNeverThrottled() {
        RequestTimeQuota.Client alone = quota.newClient();

        assertEquals(0, alone.record(ms(1_000)), "a whole handler for the whole window");
        assertEquals(1, quota.activeClients());
        assertEquals(ms(1_000), quota.shareNanos());
        assertEquals(0, alone.throttleMs());
    }

    @Test
    void activeClientsSplitTheHandlersTimeAndOnePastItsShareIsThrottledByKafkasFormula() {
        RequestTimeQuota.Client light = quota.newClient();
        RequestTimeQuota.Client heavy = quota.newClient();

        assertEquals(0, light.record(ms(1)));
        assertEquals(0, heavy.record(ms(500)), "exactly its share: half the handler's window");
        assertEquals(ms(500), quota.shareNanos());
        // 600 ms against a share of 500: (600 - 500) / 500 of the window
        assertEquals(200, heavy.record(ms(100)));
        assertEquals(0, light.record(ms(1)), "the light client is not throttled for the heavy one");
        advance(50);
        assertEquals(150, heavy.throttleMs(), "what is left of the throttle");
        advance(150);
        assertEquals(0, heavy.throttleMs());
    }

    @Test
    void networkTimeWritingAClientsResponsesCountsInItsRateAndThrottlesItsNextRequest() {
        RequestTimeQuota.Client light = quota.newClient();
        RequestTimeQuota.Client bigAnswers = quota.newClient();
        light.record(ms(1));
        assertEquals(0, bigAnswers.record(ms(100)), "within its share of 500 ms");

        bigAnswers.recordNetwork(ms(500)); // its responses took the event loop 500 ms to write
        assertEquals(0, bigAnswers.throttleMs(), "the network time throttles nothing by itself");
        assertEquals(ms(600), bigAnswers.rateNanos());

        assertEquals(200, bigAnswers.record(ms(0)), "its next request: (600 - 500) / 500 of the window");
        assertEquals(0, light.record(ms(1)));
    }

    @Test
    void aThrottleIsAtMostOneWindow() {
        RequestTimeQuota.Client[] clients = {quota.newClient(), quota.newClient(), quota.newClient(), quota.newClient()};
        for (RequestTimeQuota.Client client : clients) {
            client.record(0);
        }
        // a share of 250 ms; 1,000 ms would be throttled three windows by the formula
        assertEquals(WINDOW_MS, clients[0].record(ms(1_000)));
    }

    @Test
    void theRateSlidesOverTwoWindowsAndIdleClientsLeaveTheCount() {
        RequestTimeQuota.Client first = quota.newClient();
        RequestTimeQuota.Client second = quota.newClient();
        first.record(ms(400));
        second.record(ms(10));
        assertEquals(2, quota.activeClients());

        advance(1_250); // a quarter into the next window: both still count, from the previous one
        assertEquals(2, quota.activeClients());
        assertEquals(ms(300), first.rateNanos(), "the previous window's 400 ms, three quarters of which lie within a window of now");
        first.record(ms(100));
        assertEquals(ms(400), first.rateNanos());
        assertEquals(2, quota.activeClients(), "a client active in both windows counts once");

        advance(WINDOW_MS); // second has used nothing for a whole window: it leaves the count
        assertEquals(1, quota.activeClients());
        advance(WINDOW_MS);
        assertEquals(0, quota.activeClients());
        assertEquals(0, first.rateNanos());
    }

    @Test
    void theCostClassDoublesWithTheRate() {
        RequestTimeQuota.Client client = quota.newClient();
        assertEquals(0, client.costClass(), "no handler time used");
        client.record(ms(1)); // about 1/1024 of a handler
        assertEquals(1, client.costClass());
        client.record(ms(61)); // 62 ms: just under 1/16 (62.5 ms)
        assertEquals(RequestHandlerPool.LIGHT_COST_CLASS, client.costClass());
        client.record(ms(1)); // 63 ms: past 1/16 of a handler
        assertEquals(RequestHandlerPool.LIGHT_COST_CLASS + 1, client.costClass());
        client.record(ms(937)); // all of it
        assertEquals(RequestTimeQuota.MAX_COST_CLASS, client.costClass());
    }

    @Test
    void moreHandlersMakeALargerShare() {
        RequestTimeQuota four = new RequestTimeQuota(4, WINDOW_MS, now::get);
        RequestTimeQuota.Client[] clients = new RequestTimeQuota.Client[8];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = four.newClient();
            clients[i].record(0);
        }
        assertEquals(ms(500), four.shareNanos(), "4 handlers' windows over 8 clients");
        assertEquals(0, clients[0].record(ms(500)));
        assertEquals(100, clients[0].record(ms(50)), "50 ms past a share of 500: a tenth of the window");
    }
}
