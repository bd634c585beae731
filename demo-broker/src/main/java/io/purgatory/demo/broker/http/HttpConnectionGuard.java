package io.purgatory.demo.broker.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one dashboard connection may make the server wait for or do, between the HTTP codec (with its
 * aggregator) and the {@link DashboardHandler}:
 *
 * <ul>
 *   <li><b>A deadline for each request.</b> From the moment the connection is accepted, and again
 *       each time a response has been written, the next request must arrive whole (request line,
 *       headers and body) within the deadline, or the connection is closed: a client sending a
 *       header byte every few seconds (slowloris) holds its connection for one deadline, not for as
 *       long as it likes (an idle timeout that every byte resets would never fire). An idle
 *       keep-alive connection is closed by the same deadline.</li>
 *   <li><b>One request at a time.</b> Pipelined requests wait here (at most
 *       {@value #MAX_PIPELINED}; more close the connection) and the next goes to the handler only once
 *       the response before it has been written, and only while the client is still connected: a
 *       client that sends twenty scrapes of {@code /metrics} and leaves has at most one rendered.</li>
 * </ul>
 *
 * <p>A connection that waits for its next request ({@link #waitingSinceNanos()}) may be closed to
 * make room for a new one ({@link DashboardConnections}).
 *
 * <p>Not thread-safe: one instance per channel, confined to the HTTP event loop.
 */
final class HttpConnectionGuard extends ChannelDuplexHandler {
    /** Requests a client may send ahead of their responses; one more closes the connection. */
    static final int MAX_PIPELINED = 16;
    /** Nanoseconds value of {@link #waitingSinceNanos()} while a request is being answered. */
    static final long NOT_WAITING = Long.MAX_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(HttpConnectionGuard.class);

    private final long deadlineMs;
    private final LongSupplier nanoClock;
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean answering; // a request is with the handler and its response not written yet
    private long waitingSince = NOT_WAITING;
    private ScheduledFuture<?> deadline;

    /**
     * @param deadlineMs how long a client has to send a whole request
     * @param nanoClock {@link System#nanoTime}, for {@link #waitingSinceNanos()}
     */
    HttpConnectionGuard(long deadlineMs, LongSupplier nanoClock) {
        this.deadlineMs = deadlineMs;
        this.nanoClock = nanoClock;
    }

    /** Since when the connection waits for its next request ({@link System#nanoTime}); {@link #NOT_WAITING} while one is answered. */
    long waitingSinceNanos() {
        return waitingSince;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        awaitRequest();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        stopWaiting();
        if (!ctx.channel().isActive()) { // what the codec makes of a request cut short by the close: nobody to answer
            request.release();
        } else if (!answering) {
            answering = true;
            ctx.fireChannelRead(request);
        } else if (pipelined.size() < MAX_PIPELINED) {
            pipelined.add(request);
        } else {
            request.release();
            LOG.debug("closing HTTP connection from {}: more than {} requests pipelined", ctx.channel().remoteAddress(), MAX_PIPELINED);
            ctx.close();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent || msg instanceof HttpChunkedInput) { // a response's end (a streamed one's, whole)
            ChannelPromise written = promise.unvoid();
            written.addListener(done -> responseWritten());
            ctx.write(msg, written);
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dropPipelined();
        stopWaiting();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropPipelined();
        stopWaiting();
    }

    /** The response in progress is written (or failed): the next request goes on, if the client is still there. */
    private void responseWritten() {
        answering = false;
        if (!ctx.channel().isActive()) {
            dropPipelined();
            return;
        }
        FullHttpRequest next = pipelined.poll();
        if (next != null) {
            answering = true;
            ctx.fireChannelRead(next);
        } else {
            awaitRequest();
        }
    }

    private void awaitRequest() {
        stopWaiting();
        waitingSince = nanoClock.getAsLong();
        deadline = ctx.executor().schedule(() -> {
            LOG.debug("closing HTTP connection from {}: no whole request within {} ms", ctx.channel().remoteAddress(), deadlineMs);
            ctx.close();
        }, deadlineMs, TimeUnit.MILLISECONDS);
    }

    private void stopWaiting() {
        waitingSince = NOT_WAITING;
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void dropPipelined() {
        pipelined.forEach(ReferenceCountUtil::release);
        pipelined.clear();
    }
}
