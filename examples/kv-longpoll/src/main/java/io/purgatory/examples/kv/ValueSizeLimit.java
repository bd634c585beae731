package io.purgatory.examples.kv;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
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
 * (Netty's own has an empty body): the limit, and the request's length when it gave one, both when
 * the request announced its length and waits for {@code 100 Continue} and when the body came. The
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

    /** A request that says its body is too large and waits for {@code 100 Continue} (curl does, over 1 MiB): refused with the reason. */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
        if (!(answer instanceof FullHttpResponse refused) || !HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.equals(refused.status())) {
            return answer; // 100 Continue, or nothing to say
        }
        boolean close = !HttpUtil.isKeepAlive(refused); // the aggregator's own answer says whether the connection ends
        refused.release();
        return tooLarge(start, close);
    }

    /** A request whose body turned out too large while it came: refused with the reason. */
    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        boolean keepOpen = !(oversized instanceof FullHttpMessage)
                && (HttpUtil.is100ContinueExpected(oversized) || HttpUtil.isKeepAlive(oversized));
        if (keepOpen) {
            ctx.writeAndFlush(tooLarge(oversized, false)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else {
            ctx.writeAndFlush(tooLarge(oversized, true)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** 413 with the limit, and the request's length when it gave one; {@code Connection: close} if the connection ends. */
    private FullHttpResponse tooLarge(HttpMessage request, boolean close) {
        long length = HttpUtil.getContentLength(request, -1L);
        String reason = "a value is at most " + maxBytes + " bytes"
                + (length >= 0 ? "; this request's body is " + length + " bytes" : "") + "\n";
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                Unpooled.copiedBuffer(reason, StandardCharsets.UTF_8));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }
}
