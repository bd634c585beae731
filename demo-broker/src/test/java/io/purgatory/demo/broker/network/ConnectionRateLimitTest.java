package io.purgatory.demo.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** New connections per second from one address, on a manual clock. */
class ConnectionRateLimitTest {
    private final AtomicLong now = new AtomicLong(-5_000_000_000L);
    private final ConnectionRateLimit limit = new ConnectionRateLimit(10, now::get);

    private static InetAddress address(int last) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {10, 0, (byte) (last >> 8), (byte) last});
    }

    private void advanceMs(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void anAddressMayOpenASecondsWorthAtOnceThenOneAnIntervalAndOthersAreNotHeldBack() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertTrue(limit.admit(address(1)), "connection " + i + " of the burst");
        }
        assertFalse(limit.admit(address(1)), "the eleventh within the same instant");
        assertTrue(limit.admit(address(2)), "another address has its own rate");

        advanceMs(99);
        assertFalse(limit.admit(address(1)));
        advanceMs(1);
        assertTrue(limit.admit(address(1)), "one interval (100 ms) later, one more");
        assertFalse(limit.admit(address(1)));
    }

    @Test
    void refusedConnectionsDoNotPushTheAddressFurtherBack() throws Exception {
        for (int i = 0; i < 10; i++) {
            limit.admit(address(1));
        }
        for (int i = 0; i < 1_000; i++) {
            assertFalse(limit.admit(address(1)));
        }
        advanceMs(100);
        assertTrue(limit.admit(address(1)), "a client that keeps trying gets in at the rate, not later");
    }

    @Test
    void anAddressQuietForASecondHasItsWholeBurstAgainAndLeavesTheTable() throws Exception {
        for (int i = 0; i < 10; i++) {
            limit.admit(address(1));
        }
        advanceMs(1_000);
        for (int i = 0; i < 10; i++) {
            assertTrue(limit.admit(address(1)));
        }

        advanceMs(2_000);
        for (int a = 2; a < 2_000; a++) { // more addresses than the table holds before it drops those whose time has passed
            limit.admit(address(a));
        }
        assertEquals(1_998, limit.addresses(), "address 1, quiet for two seconds, was dropped when the table reached 1,024;"
                + " the 1,998 that connected just now are held");
    }
}
