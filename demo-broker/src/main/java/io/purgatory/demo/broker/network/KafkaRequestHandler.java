package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.KafkaApis;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
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
 * are not affected. So does a produce listing more than {@link ProduceTopicLimit#MAX_TOPICS} topic
 * entries, which Kafka would parse at a cost quadratic or worse in the repeats, and an admin request
 * with more entries than {@link RequestEntryLimit} allows, for the same reason. An {@code ApiVersions} request in a version too new is answered in version 0
 * with {@code UNSUPPORTED_VERSION}, so the client can retry with one we know.
 *
 * <p>Back-pressure, like a Kafka broker muting a channel: while {@code maxInFlight} requests of
 * this connection await their responses, further frames wait here unhandled and the socket is not
 * read (nor while it cannot take more responses), so one client cannot make the broker hold
 * unbounded work. At the limit the socket is still read until a frame waits (at most one read's
 * worth of frames is held), so that a client closing its connection is noticed even then.
 *
 * <p>A connection that has read nothing for the idle timeout ({@link IdleStateEvent} from the
 * pipeline's {@code IdleStateHandler}) and owes no response is closed.
 *
 * <p>When the connection closes, its parked produces leave the purgatory at once
 * ({@link ResponseQueue#abandon}): a Kafka broker keeps them until their timeout.
 *
 * <p>It owns the connection's {@link ResponseQueue}: responses and the broker's shutdown reach it as
 * pipeline events ({@link ConnectionEvent}), so everything it holds is touched on the event loop only.
 *
 * <p>Each request that parses is counted in {@link BrokerStats}, and so are the error codes of
 * its response.
 *
 * <p>One instance per channel; not thread-safe, confined to the channel's event loop.
 */
public final class KafkaRequestHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaRequestHandler.class);

    private final KafkaApis apis;
    private final BrokerStats stats;
    private final int maxInFlight;
    private final ArrayDeque<ByteBuf> unhandled = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private ResponseQueue responses;

    /** What this handler is told through the pipeline ({@code fireUserEventTriggered}), on its event loop. */
    enum ConnectionEvent {
        /** A response filled its slot: write what is ready, then maybe handle more requests. */
        RESPONSE_READY,
        /** The broker is shutting down: write what is owed, then close ({@link ResponseQueue#closeAfterFlush}). */
        CLOSE_AFTER_FLUSH
    }

    public KafkaRequestHandler(KafkaApis apis, BrokerStats stats, int maxInFlight) {
        this.apis = apis;
        this.stats = stats;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.responses = new ResponseQueue(ctx.channel());
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        unhandled.forEach(ByteBuf::release);
        unhandled.clear();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        responses.abandon();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object frame) {
        unhandled.add((ByteBuf) frame);
        handleFrames();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        handleFrames();
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * A response is ready to write; the broker shuts down; or the connection has read nothing for
     * the idle timeout, and is closed if it owes no response.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == ConnectionEvent.RESPONSE_READY) {
            if (responses.writeReady()) {
                handleFrames();
            }
            return;
        }
        if (event == ConnectionEvent.CLOSE_AFTER_FLUSH) {
            responses.closeAfterFlush();
            handleFrames(); // drops the frames waiting and reads on, so that the close sends no reset
            return;
        }
        if (event instanceof IdleStateEvent && responses.inFlight() == 0 && unhandled.isEmpty()) {
            LOG.debug("closing idle connection from {}", ctx.channel().remoteAddress());
            ctx.close();
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            close("bad frame (" + describe(cause) + ")");
        }
    }

    /** Handles waiting frames while fewer than {@code maxInFlight} responses are owed, then decides whether to read on. */
    private void handleFrames() {
        if (responses.isClosing()) { // shutting down: read and drop, so that closing sends no reset
            unhandled.forEach(ByteBuf::release);
            unhandled.clear();
            ctx.channel().config().setAutoRead(true);
            return;
        }
        // stop while the socket cannot take more: each fetch answered here may add megabytes to the outbound buffer
        while (!unhandled.isEmpty() && responses.inFlight() < maxInFlight && ctx.channel().isActive() && ctx.channel().isWritable()) {
            ByteBuf frame = unhandled.poll();
            try {
                handle(frame.nioBuffer()); // the buffer is used only within this call
            } finally {
                frame.release();
            }
        }
        ctx.channel().config().setAutoRead(unhandled.isEmpty() && ctx.channel().isWritable());
    }

    private void handle(ByteBuffer buffer) {
        final RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            close("malformed request header (" + describe(e) + ")");
            return;
        }
        ApiKeys api = header.apiKey();
        if (!KafkaApis.SUPPORTED.contains(api)) {
            close("unsupported API " + api + " v" + header.apiVersion());
            return;
        }
        if (!api.isVersionSupported(header.apiVersion())) {
            if (api == ApiKeys.API_VERSIONS) {
                responses.reserve(header).sendAsVersionZero(KafkaApis.apiVersions(Errors.UNSUPPORTED_VERSION));
            } else {
                close("unsupported version " + header.apiVersion() + " of " + api);
            }
            return;
        }
        if (api == ApiKeys.PRODUCE && ProduceTopicLimit.declaredTopics(buffer, header.apiVersion()) > ProduceTopicLimit.MAX_TOPICS) {
            close("produce v" + header.apiVersion() + " lists more than " + ProduceTopicLimit.MAX_TOPICS + " topic entries");
            return;
        }
        String excess = RequestEntryLimit.excess(api, header.apiVersion(), buffer);
        if (excess != null) {
            close(excess);
            return;
        }
        final AbstractRequest request;
        try {
            request = AbstractRequest.parseRequest(api, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            close("malformed " + api + " v" + header.apiVersion() + " request (" + describe(e) + ")");
            return;
        }
        InetSocketAddress local = (InetSocketAddress) ctx.channel().localAddress();
        stats.onRequest(api);
        apis.handle(header, request, local.getHostString(), local.getPort(), clientHost(), new CountingResponder(api, responses.reserve(header), stats));
    }

    /** The client's address as Kafka shows a group member's host: "/127.0.0.1", no port. */
    private String clientHost() {
        SocketAddress remote = ctx.channel().remoteAddress();
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress().toString() : String.valueOf(remote);
    }

    private void close(String reason) {
        LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        ctx.close();
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
