package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.purgatory.demo.broker.metrics.BrokerStats;

/**
 * Counts connections and bytes into {@link BrokerStats}; first in every connection's pipeline.
 *
 * <p>Thread-safe and {@link Sharable}: it holds nothing but the thread-safe {@link BrokerStats},
 * so one instance serves every channel.
 */
@Sharable
final class ConnectionStatsHandler extends ChannelDuplexHandler {
    private final BrokerStats stats;

    ConnectionStatsHandler(BrokerStats stats) {
        this.stats = stats;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        stats.onConnectionOpened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.onConnectionClosed();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            stats.onBytesRead(buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            stats.onBytesWritten(buf.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
