package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.OutOfMemoryExit;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import io.purgatory.demo.broker.server.KafkaApis;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one connection's frames into Kafka requests for {@link KafkaApis}, in Kafka's shape of
 * network threads and request handlers: here, on the connection's event loop, only the request
 * header is read and the response's slot reserved, in arrival order; the body is checked, parsed
 * and handled on a {@link RequestHandlerPool} thread, one request of this connection at a time (the
 * next waits here, as Kafka mutes a channel with a request in progress), so a slow request holds a
 * handler thread and never the other connections of this event loop.
 *
 * <p>A frame that is not a request this broker speaks (bad length prefix or header, unknown or
 * unsupported API or version, a body that does not parse) closes this connection, as a Kafka broker
 * does, but only once the responses owed for the requests before it are written; nothing after it
 * is handled. So does a produce listing more than {@link ProduceTopicLimit#MAX_TOPICS} topic entries
 * and a request with more entries than {@link RequestEntryLimit} allows. These closes are logged as
 * one WARN line per {@link SocketServer#WARNING_PERIOD_MS} with a count of the others. An
 * {@code ApiVersions} request in a version too new is answered in version 0 with
 * {@code UNSUPPORTED_VERSION}, so the client can retry with one we know. An {@link Error} is never
 * taken for a bad frame: it is logged as an error, and an {@link OutOfMemoryError} ends the process
 * ({@link OutOfMemoryExit}).
 *
 * <p>Back-pressure, like a Kafka broker muting a channel: while {@code maxInFlight} requests of
 * this connection await their responses, further frames wait here unhandled and the socket is not
 * read (nor while it cannot take more responses, nor while a frame waits for the handlers), so one
 * client cannot make the broker hold unbounded work. At the limit the socket is still read until a
 * frame waits (at most one read's worth of frames is held), so that a client closing its connection
 * is noticed even then.
 *
 * <p>Memory: each frame counts its bytes in the broker's {@link MemoryBudget}
 * ({@link MemoryBudget.Kind#IN_FLIGHT}) from when it is read until it is handled or dropped, and each
 * response from when it is built until it is written ({@link ResponseQueue}). While the whole budget
 * is used ({@link MemoryBudget#inFlightFull()}) no frame is handed on and the socket is not read, as
 * Kafka's network threads mute their channels while the request memory pool is exhausted; the
 * connection looks again every {@value #BUDGET_RECHECK_MS} ms (as Kafka's poll loop does).
 *
 * <p>Fairness by cost, as Kafka's request quotas: the CPU time each request takes on a handler
 * thread, and the event loop's CPU time writing its response, are charged to this connection's
 * {@link ConnectionQuota}, and so are its requests' and its responses' bytes, as time on the link;
 * past its fair share the response
 * carries the throttle time in {@code throttle_time_ms} and the connection is muted for that long (its
 * next request waits here, as Kafka mutes a throttled channel). The pool runs the requests of
 * connections that used less handler time first.
 *
 * <p>A connection that has read nothing for the idle timeout ({@link IdleStateEvent} from the
 * pipeline's {@code IdleStateHandler}) and owes no response is closed.
 *
 * <p>When the connection closes, its parked produces, fetches and delete-records leave their
 * purgatories at once ({@link ResponseQueue#abandon}): a Kafka broker keeps them until their timeout.
 *
 * <p>It owns the connection's {@link ResponseQueue}: responses, the end of a request's handling and
 * the broker's shutdown reach it as pipeline events ({@link ConnectionEvent}) or event-loop tasks,
 * so everything it holds is touched on the event loop only.
 *
 * <p>Each request that parses is counted in {@link BrokerStats}, and so are the error codes of
 * its response.
 *
 * <p>One instance per channel; not thread-safe, confined to the channel's event loop, but for
 * {@link #handle}, which runs on a request handler thread and reads only what it is given and the
 * thread-safe {@link KafkaApis}, {@link BrokerStats} and response slot.
 */
public final class KafkaRequestHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaRequestHandler.class);
    /** Connections closed for what their clients sent: one line per {@link SocketServer#WARNING_PERIOD_MS}, with a count. */
    private static final ThrottledWarning BAD_CONNECTIONS = new ThrottledWarning(LOG::warn, SocketServer.WARNING_PERIOD_MS, System::nanoTime);

    /** The length prefix of each frame, which the framing strips. */
    private static final int FRAME_LENGTH_BYTES = 4;

    /** How often a connection held back by a full memory budget looks again. */
    static final long BUDGET_RECHECK_MS = 10;

    private final KafkaApis apis;
    private final BrokerStats stats;
    private final MemoryBudget budget;
    private final int maxInFlight;
    private final int maxResponseBytes;
    private final Executor requestHandlers;
    private final ConnectionQuota client;
    private final ArrayDeque<ByteBuf> unhandled = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private ResponseQueue responses;
    private boolean handling; // a request of this connection is with the request handlers
    private boolean muted; // throttled: no request is handled until the throttle time has passed
    private boolean refused; // a bad frame was read: frames are dropped until the connection closes
    private String badFrame; // why the framing refused the input, until the frames before it are handed on
    private boolean recheckScheduled; // a look at the memory budget is scheduled

    /** What this handler is told through the pipeline ({@code fireUserEventTriggered}), on its event loop. */
    enum ConnectionEvent {
        /** A response filled its slot: write what is ready, then maybe handle more requests. */
        RESPONSE_READY,
        /** The broker is shutting down: write what is owed, then close ({@link ResponseQueue#closeAfterFlush}). */
        CLOSE_AFTER_FLUSH
    }

    /**
     * @param maxResponseBytes a larger response closes the connection ({@link ResponseQueue})
     * @param requestHandlers the threads that parse and handle requests ({@link RequestHandlerPool})
     * @param quota this connection's shares of the handlers' and the link's time
     */
    public KafkaRequestHandler(KafkaApis apis, BrokerStats stats, int maxInFlight, int maxResponseBytes, Executor requestHandlers,
                               ConnectionQuota quota) {
        this(apis, stats, maxInFlight, maxResponseBytes, requestHandlers, quota, MemoryBudget.unbounded());
    }

    /** As above, with requests and responses counted in {@code budget}. */
    public KafkaRequestHandler(KafkaApis apis, BrokerStats stats, int maxInFlight, int maxResponseBytes, Executor requestHandlers,
                               ConnectionQuota quota, MemoryBudget budget) {
        this.budget = budget;
        this.maxResponseBytes = maxResponseBytes;
        this.client = quota;
        this.apis = apis;
        this.requestHandlers = requestHandlers;
        this.stats = stats;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.responses = new ResponseQueue(ctx.channel(), maxResponseBytes, budget, ThrottlingResponder.THREAD_CPU, client::recordWrite);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        unhandled.forEach(this::release);
        unhandled.clear();
    }

    /** Releases a frame not handed on, and its bytes in the budget. */
    private void release(ByteBuf frame) {
        budget.release(MemoryBudget.Kind.IN_FLIGHT, frame.readableBytes());
        frame.release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        responses.abandon();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object frame) {
        if (badFrame != null) { // it came after a bad frame: dropped
            ((ByteBuf) frame).release();
            return;
        }
        budget.charge(MemoryBudget.Kind.IN_FLIGHT, ((ByteBuf) frame).readableBytes());
        client.recordRead(((ByteBuf) frame).readableBytes() + FRAME_LENGTH_BYTES);
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
        if (event instanceof IdleStateEvent && responses.inFlight() == 0 && unhandled.isEmpty() && !handling) {
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
        } else if (cause instanceof Exception) { // the framing refused a length prefix: the frames before it are handled first
            if (badFrame == null && !refused) {
                badFrame = "bad frame (" + describe(cause) + ")";
                handleFrames();
            }
        } else { // an Error is no frame's fault; an OutOfMemoryError ends the process
            OutOfMemoryExit.check(cause);
            LOG.error("closing connection from {}: {}", ctx.channel().remoteAddress(), cause.toString(), cause);
            ctx.close();
        }
    }

    /**
     * Hands waiting frames to the request handlers one at a time, while fewer than
     * {@code maxInFlight} responses are owed, then decides whether to read on.
     */
    private void handleFrames() {
        if (responses.isClosing() || refused) { // read and drop: closing sends no reset, and nothing after a bad frame is handled
            unhandled.forEach(this::release);
            unhandled.clear();
            ctx.channel().config().setAutoRead(true);
            return;
        }
        boolean budgetFull = budget.inFlightFull();
        // stop while the socket cannot take more: each fetch answered may add megabytes to the outbound buffer
        while (!handling && !muted && !refused && !budgetFull && !unhandled.isEmpty() && responses.inFlight() < maxInFlight
                && ctx.channel().isActive()
                && ctx.channel().isWritable()) {
            dispatch(unhandled.poll());
        }
        if (badFrame != null && !refused && unhandled.isEmpty()) { // every frame before the bad one has its slot
            refuse(badFrame);
        }
        ctx.channel().config().setAutoRead(refused || badFrame != null || unhandled.isEmpty() && ctx.channel().isWritable() && !budgetFull);
        if (budgetFull && !recheckScheduled && ctx.channel().isActive()) {
            recheckScheduled = true;
            ctx.executor().schedule(() -> {
                recheckScheduled = false;
                handleFrames();
            }, BUDGET_RECHECK_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reads the header of {@code frame} here, on the event loop (it is small: the rest of a bad one
     * is never read), reserves the response's slot, and hands the body to a request handler thread;
     * owns {@code frame} and releases it once handled.
     */
    private void dispatch(ByteBuf frame) {
        ByteBuffer buffer = frame.nioBuffer();
        final RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            release(frame);
            refuse("malformed request header (" + describe(e) + ")");
            return;
        }
        ApiKeys api = header.apiKey();
        if (!KafkaApis.SUPPORTED.contains(api) || !api.isVersionSupported(header.apiVersion())) {
            release(frame);
            if (api == ApiKeys.API_VERSIONS) {
                responses.reserve(header).sendAsVersionZero(KafkaApis.apiVersions(Errors.UNSUPPORTED_VERSION));
            } else {
                refuse(KafkaApis.SUPPORTED.contains(api) ? "unsupported version " + header.apiVersion() + " of " + api
                        : "unsupported API " + api + " v" + header.apiVersion());
            }
            return;
        }
        ResponseQueue.Slot slot = responses.reserve(header);
        InetSocketAddress local = (InetSocketAddress) ctx.channel().localAddress();
        Request request = new Request(header, buffer, local.getHostString(), local.getPort(), clientHost(), slot);
        handling = true;
        try {
            requestHandlers.execute(new Handling(frame, request, client.costClass()));
        } catch (RejectedExecutionException shuttingDown) {
            release(frame);
            handling = false;
            slot.noResponse();
        }
    }

    /**
     * The request handlers are done with this connection's request: hand them the next, or, when
     * they refused its body, drop what follows; a client past its share of the handlers' time is
     * muted for {@code throttleMs} first. On the event loop.
     */
    private void requestHandled(boolean refusedBody, long throttleMs) {
        handling = false;
        refused |= refusedBody;
        if (throttleMs > 0 && !refused) {
            muted = true;
            ctx.executor().schedule(this::unmute, throttleMs, TimeUnit.MILLISECONDS);
        }
        handleFrames();
    }

    /** The throttle time has passed: the next request may go to the handlers. On the event loop. */
    private void unmute() {
        muted = false;
        handleFrames();
    }

    /**
     * A request's turn on a handler thread: handles it, charges its handler time to the connection's
     * quota, releases its frame, and tells the event loop (which then drops what follows when the body
     * was refused, and mutes the connection while it is throttled). Ordered in the pool by its
     * client's cost class (taken when it was handed on), then its frame's size.
     */
    private final class Handling implements RequestHandlerPool.Prioritized {
        private final ByteBuf frame;
        private final Request request;
        private final int bytes;
        private final int costClass;

        Handling(ByteBuf frame, Request request, int costClass) {
            this.frame = frame;
            this.request = request;
            this.bytes = frame.readableBytes();
            this.costClass = costClass;
        }

        @Override
        public int bytes() {
            return bytes;
        }

        @Override
        public int costClass() {
            return costClass;
        }

        @Override
        public void run() {
            boolean handled = false;
            ApiKeys api = request.header().apiKey();
            ThrottlingResponder responder = new ThrottlingResponder(new CountingResponder(api, request.slot(), stats), client,
                    ThrottlingResponder.THREAD_CPU);
            try {
                handled = handle(request, responder);
            } catch (Error e) { // not the client's fault, nor a bad frame: logged as what it is, and the connection closes
                OutOfMemoryExit.check(e);
                LOG.error("closing connection from {}: handling its {} request failed", ctx.channel().remoteAddress(), request.header().apiKey(), e);
                request.slot().closeConnection();
                throw e;
            } finally {
                budget.release(MemoryBudget.Kind.IN_FLIGHT, bytes);
                frame.release();
                boolean refusedBody = !handled;
                long throttleMs = responder.handled();
                ctx.executor().execute(() -> requestHandled(refusedBody, throttleMs));
            }
        }
    }

    /** One request on its way to a handler thread: its header, its body (after the header) and where it came from. */
    private record Request(RequestHeader header, ByteBuffer body, String localHost, int localPort, String clientHost,
                           ResponseQueue.Slot slot) {
    }

    /**
     * Parses and handles one request; on a request handler thread. A body refused here closes the
     * connection once the responses before it are written; one that parses is answered through
     * {@code responder}.
     *
     * @return false when the body was refused
     */
    private boolean handle(Request request, ThrottlingResponder responder) {
        RequestHeader header = request.header();
        ApiKeys api = header.apiKey();
        ByteBuffer buffer = request.body();
        if (api == ApiKeys.PRODUCE && ProduceTopicLimit.declaredTopics(buffer, header.apiVersion()) > ProduceTopicLimit.MAX_TOPICS) {
            refuse(request.slot(), "produce v" + header.apiVersion() + " lists more than " + ProduceTopicLimit.MAX_TOPICS + " topic entries");
            return false;
        }
        String excess = RequestEntryLimit.excess(api, header.apiVersion(), buffer);
        if (excess != null) {
            refuse(request.slot(), excess);
            return false;
        }
        final AbstractRequest parsed;
        try {
            parsed = AbstractRequest.parseRequest(api, header.apiVersion(), new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            refuse(request.slot(), "malformed " + api + " v" + header.apiVersion() + " request (" + describe(e) + ")");
            return false;
        }
        stats.onRequest(api);
        apis.handle(header, parsed, request.localHost(), request.localPort(), request.clientHost(), responder);
        return true;
    }

    /** The client's address as Kafka shows a group member's host: "/127.0.0.1", no port. */
    private String clientHost() {
        SocketAddress remote = ctx.channel().remoteAddress();
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress().toString() : String.valueOf(remote);
    }

    /**
     * A frame this broker does not handle, read on the event loop: nothing after it is handled, and
     * the connection closes once the responses owed before it are written.
     */
    private void refuse(String reason) {
        refused = true;
        refuse(responses.reserveClose(), reason);
    }

    /** Closes the connection at {@code slot}, once the responses before it are written; on any thread. */
    private void refuse(ResponseQueue.Slot slot, String reason) {
        BAD_CONNECTIONS.warn("closing connection from " + ctx.channel().remoteAddress() + ": " + reason);
        slot.closeConnection();
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
