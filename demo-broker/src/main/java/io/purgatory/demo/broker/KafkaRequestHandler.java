package io.purgatory.demo.broker;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one connection's frames into Kafka requests for {@link KafkaApis}. A frame that is not a
 * request this broker speaks (bad header, unknown or unsupported API or version, a body that does
 * not parse) closes this connection with a log line, as a Kafka broker does; other connections
 * are not affected. An {@code ApiVersions} request in a version too new is answered in version 0
 * with {@code UNSUPPORTED_VERSION}, so the client can retry with one we know.
 *
 * <p>One instance per channel; not thread-safe, confined to the channel's event loop.
 */
final class KafkaRequestHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger log = LoggerFactory.getLogger(KafkaRequestHandler.class);

    private final KafkaApis apis;
    private ResponseQueue responses;

    KafkaRequestHandler(KafkaApis apis) {
        this.apis = apis;
    }

    ResponseQueue responses() {
        return responses;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        responses = new ResponseQueue(ctx.channel());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        final ByteBuffer buffer = frame.nioBuffer(); // used only within this call; the frame is released after it
        final RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            close(ctx, "malformed request header (" + describe(e) + ")");
            return;
        }
        final ApiKeys api = header.apiKey();
        if (!KafkaApis.SUPPORTED.contains(api)) {
            close(ctx, "unsupported API " + api + " v" + header.apiVersion());
            return;
        }
        if (!api.isVersionSupported(header.apiVersion())) {
            if (api == ApiKeys.API_VERSIONS) {
                responses.reserve(header).sendAsVersionZero(KafkaApis.apiVersions(Errors.UNSUPPORTED_VERSION));
            } else {
                close(ctx, "unsupported version " + header.apiVersion() + " of " + api);
            }
            return;
        }
        final AbstractRequest request;
        try {
            request = AbstractRequest.parseRequest(api, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            close(ctx, "malformed " + api + " v" + header.apiVersion() + " request (" + describe(e) + ")");
            return;
        }
        final InetSocketAddress local = (InetSocketAddress) ctx.channel().localAddress();
        apis.handle(header, request, local.getHostString(), local.getPort(), responses.reserve(header));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            close(ctx, "bad frame (" + describe(cause) + ")");
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    private static void close(ChannelHandlerContext ctx, String reason) {
        log.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }
}
