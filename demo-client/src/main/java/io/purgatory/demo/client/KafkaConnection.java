package io.purgatory.demo.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection to a Kafka broker carrying pipelined requests. Frames are a 4-byte big-endian
 * length and a message. The Kafka protocol answers a connection's requests in the order they were
 * sent, so the requests awaiting a response form a FIFO queue and each response frame belongs to its
 * head (the correlation id is checked); a request that expects no response ({@code acks=0}) never
 * enters the queue.
 *
 * <p>A request the caller gave up on stays in the queue until its response arrives: the responses
 * behind it are still in order. When the connection closes, for whatever reason, every request in the
 * queue fails with {@link ClosedException}, just after {@link #closeFuture()} completes with the reason. A
 * response that does not parse, or has the wrong correlation id, closes the connection.
 *
 * <p>Thread-safety: {@link #send} and {@link #close} may be called from any thread; they hand their
 * work to the channel's event loop, which alone owns the queue, the correlation ids and the close
 * reason. Response futures complete on the event loop, so their callbacks run there.
 */
final class KafkaConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

    /** Largest response frame accepted; a produce response for one partition is tens of bytes. */
    static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
    private static final long CLOSE_WAIT_MS = 5_000;

    private final Endpoint endpoint;
    private final String clientId;
    private final Handler handler = new Handler();
    private final ArrayDeque<Awaiting> awaiting = new ArrayDeque<>(); // event loop only
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private int nextCorrelationId; // event loop only
    private String closeReason; // event loop only: why we are closing, null until we decide to
    private boolean notKafka; // event loop only: the peer answered with something that is not Kafka's framing
    private Channel channel; // written once by open(), before the connection is handed out

    private KafkaConnection(Endpoint endpoint, String clientId) {
        this.endpoint = endpoint;
        this.clientId = clientId;
    }

    /**
     * Connects to {@code endpoint}, waiting at most {@code connectTimeoutMs}.
     *
     * @throws ClientException "cannot connect to host:port: reason" when the connect fails
     */
    static KafkaConnection open(EventLoopGroup group, Endpoint endpoint, int connectTimeoutMs, String clientId)
            throws ClientException, InterruptedException {
        KafkaConnection connection = new KafkaConnection(endpoint, clientId);
        ChannelFuture connect = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline()
                                .addLast("frames", new FrameDecoder())
                                .addLast("length", new LengthFieldPrepender(4))
                                .addLast("responses", connection.handler);
                    }
                })
                .connect(endpoint.host(), endpoint.port());
        connect.await(); // CONNECT_TIMEOUT_MILLIS bounds it; name resolution happens before and fails fast
        if (!connect.isSuccess()) {
            throw new ClientException("cannot connect to " + endpoint + ": " + describeConnectFailure(connect.cause(), connectTimeoutMs),
                    connect.cause());
        }
        connection.channel = connect.channel();
        LOG.debug("connected to {} from {}", endpoint, connection.channel.localAddress());
        return connection;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /**
     * Sends {@code request} (its version is the one it was built for). The future completes on the
     * event loop: with the parsed response; with {@code null} once written when
     * {@code expectResponse} is false; or with {@link ClosedException} when the connection closes
     * first. The request is written before this returns when called on the event loop.
     */
    CompletableFuture<AbstractResponse> send(AbstractRequest request, boolean expectResponse) {
        CompletableFuture<AbstractResponse> result = new CompletableFuture<>();
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            write(request, expectResponse, result);
        } else {
            try {
                loop.execute(() -> write(request, expectResponse, result));
            } catch (RejectedExecutionException shutDown) {
                result.completeExceptionally(new ClosedException("the client is shutting down"));
            }
        }
        return result;
    }

    /** Completes, on the event loop, with the reason once the connection has closed. */
    CompletableFuture<String> closeFuture() {
        return closed;
    }

    /** Closes the connection; requests still awaiting a response fail. Waits for the close. */
    @Override
    public void close() {
        try {
            channel.eventLoop().execute(() -> closeWith(channel, "closed by the client"));
        } catch (RejectedExecutionException shutDown) {
            channel.close();
        }
        channel.closeFuture().awaitUninterruptibly(CLOSE_WAIT_MS);
    }

    private void write(AbstractRequest request, boolean expectResponse, CompletableFuture<AbstractResponse> result) {
        if (closeReason != null || !channel.isActive()) {
            result.completeExceptionally(new ClosedException(closeReason != null ? closeReason : "the connection is closed"));
            return;
        }
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), clientId, nextCorrelationId++);
        final ByteBuffer bytes;
        try {
            bytes = request.serializeWithHeader(header);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        if (expectResponse) {
            awaiting.add(new Awaiting(header, result));
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener(written -> {
            if (!written.isSuccess()) {
                closeWith(channel, "write failed: " + message(written.cause()));
                result.completeExceptionally(new ClosedException(closeReason));
            } else if (!expectResponse) {
                result.complete(null);
            }
        });
    }

    private void closeWith(Channel ch, String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        ch.close();
    }

    private static String describeConnectFailure(Throwable cause, int connectTimeoutMs) {
        if (cause instanceof UnknownHostException) {
            return "unknown host";
        }
        if (cause instanceof ConnectTimeoutException) {
            return "connect timed out after " + connectTimeoutMs + " ms";
        }
        String message = message(cause);
        if (cause instanceof ConnectException) {
            // Netty appends ": host/address:port" to the JDK's message; the address is already in our line
            int annotation = message.indexOf(": ");
            return annotation > 0 ? message.substring(0, annotation) : message;
        }
        return message;
    }

    private static String message(Throwable cause) {
        return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    }

    /** A request that expects a response, in send order. */
    private record Awaiting(RequestHeader header, CompletableFuture<AbstractResponse> result) {
    }

    /** The connection closed before the request's response arrived (or before it was written). */
    static class ClosedException extends IOException {
        ClosedException(String reason) {
            super(reason);
        }
    }

    /**
     * The peer answered with text where a Kafka response starts with its length: an HTTP server (the
     * dashboard's port, say) or another protocol, not a Kafka broker.
     */
    static final class NotKafkaException extends ClosedException {
        NotKafkaException(String reason) {
            super(reason);
        }
    }

    /**
     * Splits response frames (a 4-byte length, then the message) and tells a peer that is no Kafka
     * broker from an oversized frame: four printable ASCII bytes where the length goes ("HTTP" is
     * 1213486164) are text, not a response of over 512 MiB. One per channel; on its event loop.
     */
    private static final class FrameDecoder extends LengthFieldBasedFrameDecoder {
        private static final int PRINTABLE_FIRST = 0x20;
        private static final int PRINTABLE_LAST = 0x7e;

        FrameDecoder() {
            super(MAX_RESPONSE_BYTES, 0, 4, 0, 4);
        }

        @Override
        protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
            StringBuilder text = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                int b = buf.getUnsignedByte(offset + i);
                if (b < PRINTABLE_FIRST || b > PRINTABLE_LAST) {
                    return super.getUnadjustedFrameLength(buf, offset, length, order);
                }
                text.append((char) b);
            }
            throw new TextInsteadOfLength("it answered with text starting '" + text + "' where a Kafka response starts with its length");
        }
    }

    /** What {@link FrameDecoder} throws for text where a length goes; the message says what the text was. */
    private static final class TextInsteadOfLength extends DecoderException {
        TextInsteadOfLength(String message) {
            super(message);
        }
    }

    /** Matches response frames to the queue's head; on the event loop. */
    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            Awaiting head = awaiting.poll();
            if (head == null) {
                closeWith(ctx.channel(), "protocol error: a response arrived with no request awaiting one");
                return;
            }
            final AbstractResponse response;
            try {
                response = AbstractResponse.parseResponse(frame.nioBuffer(), head.header());
            } catch (RuntimeException e) {
                closeWith(ctx.channel(), "protocol error: cannot parse the " + head.header().apiKey() + " v"
                        + head.header().apiVersion() + " response (" + message(e) + ")");
                head.result().completeExceptionally(new ClosedException(closeReason));
                return;
            }
            head.result().complete(response);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (closeReason == null) {
                closeReason = "closed by the broker";
            }
            LOG.debug("connection to {} closed ({}) with {} request(s) awaiting a response", endpoint, closeReason, awaiting.size());
            closed.complete(closeReason); // first, so its callbacks still see the requests in flight
            ClosedException closedException = notKafka ? new NotKafkaException(closeReason) : new ClosedException(closeReason);
            for (Awaiting pending = awaiting.poll(); pending != null; pending = awaiting.poll()) {
                pending.result().completeExceptionally(closedException);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("connection to {} failed", endpoint, cause);
            if (cause instanceof TextInsteadOfLength text) {
                notKafka = true;
                closeWith(ctx.channel(), text.getMessage());
                return;
            }
            closeWith(ctx.channel(), cause instanceof IOException ? message(cause) : "protocol error: " + message(cause));
        }
    }
}
