package io.purgatory.examples.kv;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * Netty's {@link HttpObjectAggregator}, whose 413 answer to a request body over the limit says why
 * (Netty's own has an empty body): the limit, and the request's length when it gave one. The
 * connection is handled as Netty does: closed after the answer, unless the client asked to keep it
 * alive or waits to send the body ({@code Expect: 100-continue}), in which case the body it sends
 * anyway is discarded. One per channel; not thread-safe, as its superclass.
 */
final class ValueSizeLimit extends HttpObjectAggregator {

    private final int maxBytes;

    ValueSizeLimit(int maxBytes) {
        super(maxBytes);
        this.maxBytes = maxBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        long length = HttpUtil.getContentLength(oversized, -1L);
        String reason = "a value is at most " + maxBytes + " bytes"
                + (length >= 0 ? "; this request's body is " + length + " bytes" : "") + "\n";
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        boolean keepOpen = !(oversized instanceof FullHttpMessage)
                && (HttpUtil.is100ContinueExpected(oversized) || HttpUtil.isKeepAlive(oversized));
        if (keepOpen) {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
