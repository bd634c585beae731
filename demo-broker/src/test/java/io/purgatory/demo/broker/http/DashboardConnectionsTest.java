package io.purgatory.demo.broker.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which dashboard connections are kept: past a cap, a new one takes the place of the one waiting
 * longest for a request (of its address, when its address is at its cap); refused only when every
 * connection in the way is being answered, logged once per period with a count.
 */
class DashboardConnectionsTest {
    private final AtomicLong nanos = new AtomicLong();
    private final List<String> warnings = new ArrayList<>();
    private final DashboardConnections connections = new DashboardConnections(3, 2,
            new ThrottledWarning(warnings::add, 10_000, nanos::get));
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void tearDown() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    /** A connection from {@code host}, accepted at {@code atNanos}, waiting for its first request. */
    private EmbeddedChannel connect(String host, long atNanos) {
        nanos.set(atNanos);
        InetSocketAddress remote = new InetSocketAddress(host, 40_000 + channels.size());
        EmbeddedChannel channel = new EmbeddedChannel() {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }
        };
        channels.add(channel);
        HttpConnectionGuard guard = new HttpConnectionGuard(10_000, nanos::get);
        if (connections.admit(channel, guard)) {
            channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1024), guard, new SimpleChannelInboundHandler<FullHttpRequest>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
                    // being answered: the response never comes, as for an event stream
                }
            });
        }
        return channel;
    }

    private static void request(EmbeddedChannel channel) {
        channel.writeInbound(Unpooled.copiedBuffer("GET /events HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
    }

    @Test
    void pastTheTotalANewConnectionReplacesTheOneWaitingLongestForARequest() {
        EmbeddedChannel first = connect("127.0.0.1", 1);
        EmbeddedChannel second = connect("127.0.0.2", 2);
        EmbeddedChannel third = connect("127.0.0.3", 3);
        request(first); // being answered: stays

        EmbeddedChannel fourth = connect("127.0.0.4", 4);

        assertTrue(first.isOpen());
        assertFalse(second.isOpen(), "waited longest for a request");
        assertTrue(third.isOpen());
        assertTrue(fourth.isOpen());
        assertEquals(3, connections.size());
        assertEquals(List.of(), warnings);
    }

    @Test
    void pastItsAddressesCapANewConnectionReplacesThatAddresssOwn() {
        EmbeddedChannel other = connect("127.0.0.9", 1);
        EmbeddedChannel first = connect("127.0.0.1", 2);
        EmbeddedChannel second = connect("127.0.0.1", 3);

        EmbeddedChannel third = connect("127.0.0.1", 4);

        assertTrue(other.isOpen(), "another address's connection, though it waited longer");
        assertFalse(first.isOpen());
        assertTrue(second.isOpen());
        assertTrue(third.isOpen());
    }

    @Test
    void whenEveryConnectionInTheWayIsAnsweredTheNewOneIsRefusedAndLoggedOncePerPeriodWithACount() {
        for (int i = 0; i < 3; i++) {
            request(connect("127.0.0." + i, i));
        }
        EmbeddedChannel refused = connect("127.0.0.7", 10);
        assertFalse(refused.isOpen());
        for (int i = 0; i < 5; i++) {
            assertFalse(connect("127.0.0.7", 11 + i).isOpen());
        }
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("refusing HTTP connection from /127.0.0.7:"), warnings.get(0));

        assertFalse(connect("127.0.0.7", 10_000_000_100L).isOpen()); // a period after the first warning
        assertEquals(2, warnings.size());
        assertTrue(warnings.get(1).endsWith("(5 more like it since the last warning, not logged)"), warnings.get(1));
        assertEquals(3, connections.size());
    }
}
