package io.purgatory.demo.broker.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A dashboard connection's request deadline and its one-request-at-a-time pipelining, on Netty's embedded channel and its clock. */
class HttpConnectionGuardTest {
    private static final long DEADLINE_MS = 10_000;

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final List<String> handled = new ArrayList<>();
    private final List<ChannelHandlerContext> unanswered = new ArrayList<>();
    private final HttpConnectionGuard guard = new HttpConnectionGuard(DEADLINE_MS, nanos::get);
    private EmbeddedChannel channel;

    /** Records each request it is given and answers it only when told ({@link #answer()}). */
    private final class Recorder extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            handled.add(request.uri());
            unanswered.add(ctx);
        }
    }

    private EmbeddedChannel connect() {
        channel = new EmbeddedChannel();
        channel.freezeTime(); // before the guard starts its deadline
        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1024), guard, new Recorder());
        return channel;
    }

    @AfterEach
    void tearDown() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private void send(String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private void answer() {
        ChannelHandlerContext ctx = unanswered.remove(0);
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER));
        channel.runPendingTasks();
        for (Object written = channel.readOutbound(); written != null; written = channel.readOutbound()) {
            ((ByteBuf) written).release();
        }
    }

    private void after(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aClientTricklingItsHeadersIsClosedAtTheDeadlineWhateverItSends() {
        connect();
        send("GET /metrics HTTP/1.1\r\nHo");
        after(DEADLINE_MS - 1);
        send("st: x\r\nX-Slow: "); // every byte would reset an idle timeout; not the deadline
        assertTrue(channel.isOpen());
        after(1);
        assertFalse(channel.isOpen(), "closed a deadline after it connected");
        assertEquals(List.of(), handled);
    }

    @Test
    void theDeadlineRunsAgainFromEachResponseAndNotWhileARequestIsAnswered() {
        connect();
        send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals(HttpConnectionGuard.NOT_WAITING, guard.waitingSinceNanos(), "a whole request arrived: it is being answered");
        after(3 * DEADLINE_MS); // a slow answer (an event stream never ends) is not the client's fault
        assertTrue(channel.isOpen());
        nanos.set(5_000);
        answer();
        assertEquals(5_000, guard.waitingSinceNanos(), "waits for the next request from its response");
        after(DEADLINE_MS - 1);
        assertTrue(channel.isOpen());
        after(1);
        assertFalse(channel.isOpen(), "an idle keep-alive connection is closed by the same deadline");
    }

    @Test
    void pipelinedRequestsGoOnOneAtATimeAndNotAfterTheClientHasGone() {
        connect();
        send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals(List.of("/1"), handled, "the second waits for the first's response");
        answer();
        assertEquals(List.of("/1", "/2"), handled);
        channel.close();
        unanswered.remove(0).writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        channel.runPendingTasks();
        assertEquals(List.of("/1", "/2"), handled, "the client has gone: /3 is not handled");
    }

    @Test
    void moreRequestsPipelinedThanAllowedCloseTheConnection() {
        connect();
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i <= HttpConnectionGuard.MAX_PIPELINED + 1; i++) {
            requests.append("GET /").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        send(requests.toString());
        assertFalse(channel.isOpen());
        assertEquals(List.of("/0"), handled);
    }
}
