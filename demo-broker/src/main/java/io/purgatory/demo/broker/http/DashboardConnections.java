package io.purgatory.demo.broker.http;

import io.netty.channel.Channel;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which connections the dashboard keeps: at most {@code maxConnections} in all and
 * {@code maxPerAddress} from one client address. A new connection past either cap takes the place of
 * the connection (of that address, or of any when the total is reached) that has waited longest for
 * its next request ({@link HttpConnectionGuard#waitingSinceNanos()}): a connection trickling its
 * headers, or an idle keep-alive one, is closed so that a new client is served at once. Only when
 * every connection in the way is being answered (an event stream, a response being written) is the new
 * one refused (closed at once); refusals are logged at most once per period, with a count.
 *
 * <p>Not thread-safe: confined to the HTTP event loop, which accepts and closes every connection.
 */
final class DashboardConnections {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardConnections.class);

    private final int maxConnections;
    private final int maxPerAddress;
    private final ThrottledWarning refusals;
    private final Map<Channel, Held> open = new LinkedHashMap<>();
    private final Map<Object, Integer> perAddress = new HashMap<>();

    /** A connection kept: its guard, and its client's address as it was when accepted. */
    private record Held(HttpConnectionGuard guard, Object address) {
    }

    /** @param refusals where refusals are logged, throttled */
    DashboardConnections(int maxConnections, int maxPerAddress, ThrottledWarning refusals) {
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
        this.refusals = refusals;
    }

    /**
     * Takes {@code channel}, guarded by {@code guard}, making room as the class comment says, or
     * closes it. On the event loop.
     *
     * @return whether it was taken
     */
    boolean admit(Channel channel, HttpConnectionGuard guard) {
        Object address = address(channel.remoteAddress());
        int fromAddress = perAddress.getOrDefault(address, 0);
        if (fromAddress >= maxPerAddress || open.size() >= maxConnections) {
            Object from = fromAddress >= maxPerAddress ? address : null;
            Channel victim = longestWaiting(from);
            if (victim == null) {
                refusals.warn("refusing HTTP connection from " + channel.remoteAddress() + ": " + open.size() + " open (at most "
                        + maxConnections + ", " + maxPerAddress + " per address; " + fromAddress + " from this one), each being answered");
                channel.close();
                return false;
            }
            LOG.debug("closing HTTP connection from {}, waiting for a request, to serve a new one", victim.remoteAddress());
            remove(victim);
            victim.close();
        }
        open.put(channel, new Held(guard, address));
        perAddress.merge(address, 1, Integer::sum);
        channel.closeFuture().addListener(closed -> remove(channel));
        return true;
    }

    /** Connections open now. */
    int size() {
        return open.size();
    }

    /** The connection (from {@code address}, or from any when null) that has waited longest for a request; null when none waits. */
    private Channel longestWaiting(Object address) {
        Channel oldest = null;
        long since = HttpConnectionGuard.NOT_WAITING;
        for (Map.Entry<Channel, Held> entry : open.entrySet()) {
            long waiting = entry.getValue().guard().waitingSinceNanos();
            if (waiting != HttpConnectionGuard.NOT_WAITING && (oldest == null || waiting - since < 0)
                    && (address == null || address.equals(entry.getValue().address()))) {
                oldest = entry.getKey();
                since = waiting;
            }
        }
        return oldest;
    }

    private void remove(Channel channel) {
        Held held = open.remove(channel);
        if (held != null) {
            perAddress.computeIfPresent(held.address(), (a, n) -> n > 1 ? n - 1 : null);
        }
    }

    /** The client's IP address, without its port. */
    private static Object address(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            InetAddress ip = inet.getAddress();
            return ip != null ? ip : inet.getHostString();
        }
        return String.valueOf(remote);
    }
}
