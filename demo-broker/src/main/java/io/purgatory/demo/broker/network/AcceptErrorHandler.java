package io.purgatory.demo.broker.network;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.purgatory.demo.broker.metrics.OutOfMemoryExit;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.util.concurrent.TimeUnit;

/**
 * On the server channel: when accepting a connection fails (typically {@code EMFILE}, too many
 * open files), stops accepting for {@value #PAUSE_MS} ms and warns through a
 * {@link ThrottledWarning}, one line without a stack trace per period (an {@link OutOfMemoryError}
 * ends the process: {@link OutOfMemoryExit}). Netty's own handling pauses
 * the same way but logs the whole stack trace at every failure, every second while the file
 * descriptors stay exhausted; this handler sits before it and does not pass the failure on.
 *
 * <p>Thread-safe: stateless but for the thread-safe warning; shared by design.
 */
@ChannelHandler.Sharable
public final class AcceptErrorHandler extends ChannelInboundHandlerAdapter {
    static final long PAUSE_MS = 1_000;

    private final ThrottledWarning warning;

    public AcceptErrorHandler(ThrottledWarning warning) {
        this.warning = warning;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        OutOfMemoryExit.check(cause);
        warning.warn("cannot accept connections (" + cause + "); pausing accepts for " + PAUSE_MS + " ms at a time until it can");
        if (ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
            ctx.channel().eventLoop().schedule(() -> ctx.channel().config().setAutoRead(true), PAUSE_MS, TimeUnit.MILLISECONDS);
        }
    }
}
