package io.purgatory.examples.kv;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.purgatory.WaitOutcome;
import io.purgatory.Waiters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's requests: {@code GET /kv/{key}} answers the value and its index in
 * {@code X-Index}; with {@code ?index=N} it is a blocking query, answered as soon as the key's index
 * passes N, or after {@code wait} (default and cap set by the server) with the value as it is then;
 * {@code PUT /kv/{key}} stores the body under the next index and answers the waiting queries on key;
 * {@code GET /metrics} shows the waits' meters (Prometheus' text format).
 *
 * <p>A blocking query that cannot be answered at once is a {@link Waiters#waitFor} future. When the
 * client goes away (the channel becomes inactive), the future is cancelled, which removes its wait
 * from the purgatory at once. The future's callback runs on whichever thread answered the wait (a
 * PUT's event loop, the timer's); it hands the answer to this channel's event loop.
 *
 * <p>One handler per channel; not thread-safe: {@code parked} is touched on the channel's event loop
 * only. A connection has at most one request in flight: a request pipelined behind a parked query
 * closes the connection.
 */
final class KvHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(KvHandler.class);
    private static final String PREFIX = "/kv/";
    private static final String METRICS = "/metrics";
    static final String INDEX_HEADER = "X-Index";

    private final KvStore store;
    private final Waiters<String> waiters;
    private final Supplier<String> metrics;
    private final Duration defaultWait;
    private final Duration maxWait;
    /** The blocking query parked on this connection, or null. Event loop only. */
    private CompletableFuture<WaitOutcome> parked;

    /** @param metrics the server's meters in Prometheus' text format, for {@code GET /metrics} */
    KvHandler(KvStore store, Waiters<String> waiters, Supplier<String> metrics, Duration defaultWait, Duration maxWait) {
        this.store = store;
        this.waiters = waiters;
        this.metrics = metrics;
        this.defaultWait = defaultWait;
        this.maxWait = maxWait;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (parked != null) {
            LOG.debug("{}: a request pipelined behind a blocking query; closing", ctx.channel());
            ctx.close();
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String path = uri.path();
        if (path.equals(METRICS) && HttpMethod.GET.equals(request.method())) {
            respond(ctx, HttpResponseStatus.OK, metrics.get(), -1, keepAlive);
            return;
        }
        if (!path.startsWith(PREFIX) || path.length() == PREFIX.length()) {
            respond(ctx, HttpResponseStatus.NOT_FOUND, "no such resource: " + path + "\n", -1, keepAlive);
            return;
        }
        String key = path.substring(PREFIX.length());
        if (HttpMethod.GET.equals(request.method())) {
            get(ctx, key, uri, keepAlive);
        } else if (HttpMethod.PUT.equals(request.method())) {
            long index = store.put(key, request.content().toString(StandardCharsets.UTF_8));
            waiters.advance(key);
            respond(ctx, HttpResponseStatus.OK, "true\n", index, keepAlive);
        } else {
            respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or PUT\n", -1, keepAlive);
        }
    }

    private void get(ChannelHandlerContext ctx, String key, QueryStringDecoder uri, boolean keepAlive) {
        String indexText = parameter(uri, "index");
        String waitText = parameter(uri, "wait");
        long index;
        Duration wait;
        try {
            index = indexText == null ? -1 : parseIndex(indexText);
            wait = waitText == null ? defaultWait : WaitParameter.parse(waitText, maxWait);
        } catch (IllegalArgumentException e) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, e.getMessage() + "\n", -1, keepAlive);
            return;
        }
        if (index < 0 || store.indexOf(key) > index) {
            answerValue(ctx, key, keepAlive);
            return;
        }
        // the key's index passes N when it reaches N + 1; no index passes Long.MAX_VALUE, so that query waits its wait out
        long target = index == Long.MAX_VALUE ? Long.MAX_VALUE : index + 1;
        CompletableFuture<WaitOutcome> poll = waiters.waitFor(key, target, wait);
        parked = poll;
        poll.whenComplete((outcome, cancelled) -> ctx.executor().execute(() -> answerPoll(ctx, key, poll, outcome, keepAlive)));
    }

    /** On the event loop, once the poll's wait ended: the value as it is now, or 503 if the server is closing. */
    private void answerPoll(ChannelHandlerContext ctx, String key, CompletableFuture<WaitOutcome> poll, WaitOutcome outcome,
                            boolean keepAlive) {
        if (parked == poll) {
            parked = null;
        }
        if (outcome == null || !ctx.channel().isActive()) {
            return; // cancelled: the client went away
        }
        if (outcome == WaitOutcome.CLOSED) {
            respond(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "shutting down\n", store.indexOf(key), false);
        } else {
            answerValue(ctx, key, keepAlive);
        }
    }

    private void answerValue(ChannelHandlerContext ctx, String key, boolean keepAlive) {
        KvStore.Entry entry = store.get(key);
        if (entry == null) {
            respond(ctx, HttpResponseStatus.NOT_FOUND, "", 0, keepAlive);
        } else {
            respond(ctx, HttpResponseStatus.OK, entry.value(), entry.index(), keepAlive);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (parked != null) {
            parked.cancel(false); // the client went away: its wait leaves the purgatory now
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{}: closing after {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** The first value of the query parameter, or null if the query has none. */
    private static String parameter(QueryStringDecoder uri, String name) {
        List<String> values = uri.parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The {@code index} parameter: a whole number, not negative. @throws IllegalArgumentException naming it */
    static long parseIndex(String text) {
        long index;
        try {
            index = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("index must be a whole number from 0 to " + Long.MAX_VALUE + ": " + text, e);
        }
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative: " + text);
        }
        return index;
    }

    /** Writes a text response; {@code index} goes into {@value #INDEX_HEADER} unless negative. */
    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String body, long index, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        if (index >= 0) {
            response.headers().set(INDEX_HEADER, index);
        }
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
