package io.purgatory.demo.broker.network;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * New connections per second from one address, as Kafka's per-IP connection creation rate quota
 * bounds them: an address may open {@code perSecond} connections a second, and as many at once (a
 * second's worth, then one every {@code 1 / perSecond} s). Past it a new connection is refused. So a
 * client cannot escape its connection's share of the handlers' and the link's time
 * ({@link ConnectionQuota}) by opening a new connection for each request.
 *
 * <p>Each address has a theoretical arrival time (the generic cell rate algorithm): a connection
 * arriving more than one second before its address's is refused and does not move it; an admitted
 * one moves it one interval on. An address whose time has passed holds nothing: the table drops
 * such addresses whenever it has doubled since it last did, so it holds at most about twice the
 * addresses that connected within the last second, plus 1,024.
 *
 * <p>Thread-safe: {@code arrivals} and {@code purgeAt} are guarded by {@code this}.
 */
public final class ConnectionRateLimit {
    private static final int MIN_PURGE_AT = 1_024;

    private final long intervalNanos;
    private final long burstNanos;
    private final LongSupplier nanoClock;
    @GuardedBy("this")
    private final Map<InetAddress, Long> arrivals = new HashMap<>();
    @GuardedBy("this")
    private int purgeAt = MIN_PURGE_AT;

    /**
     * @param perSecond new connections a second from one address, and as many at once
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    public ConnectionRateLimit(int perSecond, LongSupplier nanoClock) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("the connection rate must be positive: " + perSecond);
        }
        this.intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        this.burstNanos = TimeUnit.SECONDS.toNanos(1) - intervalNanos;
        this.nanoClock = nanoClock;
    }

    /** Whether a new connection from {@code address} is within its rate; counts it when it is. */
    public synchronized boolean admit(InetAddress address) {
        long now = nanoClock.getAsLong();
        Long due = arrivals.get(address);
        long arrival = due == null || due - now < 0 ? now : due;
        if (arrival - now > burstNanos) {
            return false;
        }
        arrivals.put(address, arrival + intervalNanos);
        if (arrivals.size() >= purgeAt) {
            arrivals.values().removeIf(next -> next - now <= 0);
            purgeAt = Math.max(MIN_PURGE_AT, 2 * arrivals.size());
        }
        return true;
    }

    /** Addresses with connections counted within the last second (or not dropped yet). */
    synchronized int addresses() {
        return arrivals.size();
    }
}
