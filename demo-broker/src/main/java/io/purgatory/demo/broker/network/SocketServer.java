package io.purgatory.demo.broker.network;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.BrokerSettings;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import io.purgatory.demo.broker.server.KafkaApis;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka listener, like Kafka's {@code SocketServer}: accepts connections and gives each a
 * pipeline of {@link ConnectionStatsHandler}, an idle timer, the length-prefixed framing and a
 * {@link KafkaRequestHandler}, which hands requests to the {@link RequestHandlerPool} in front of
 * {@link KafkaApis}. Its event loops are Kafka's network threads: they never run a request. Every
 * connection has a {@link ConnectionQuota}: a fair share of the handlers' time and of the link's.
 *
 * <p>Frames are a 4-byte big-endian length and a request; a negative length or one above
 * {@link BrokerConfig#maxFrameBytes()} closes that connection. Past
 * {@link BrokerConfig#maxConnections()} open connections, or past an address's rate of new ones
 * ({@link ConnectionRateLimit}), a new one is accepted and closed at once;
 * a connection with nothing in flight that sends nothing for {@link BrokerConfig#idleTimeoutMs()}
 * is closed. Refused connections and failing accepts (no file descriptors left) are logged at most
 * once every {@value #WARNING_PERIOD_MS} ms.
 *
 * <p>Stopping takes two steps, so that the broker can answer parked requests in between:
 * {@link #stopAccepting()}, then {@link #closeConnections()}, which lets every connection write
 * what it owes, half-closes it and stops the event loops.
 *
 * <p>Thread-safe: {@code openConnections} is atomic, the channel group is thread-safe, and the
 * other fields are final.
 */
public final class SocketServer {
    /** A resource problem (connections refused, accepts failing) is logged at most once per this period. */
    public static final long WARNING_PERIOD_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(SocketServer.class);
    private static final long CLOSE_TIMEOUT_MS = 10_000;
    /**
     * Responses written but not yet taken by the socket, per connection: above the high mark the
     * connection is unwritable, and hands no request to the handlers nor reads its socket until they
     * drop below the low mark ({@link KafkaRequestHandler}). Netty's defaults, stated.
     */
    private static final WriteBufferWaterMark UNWRITTEN_RESPONSES = new WriteBufferWaterMark(32 * 1024, 64 * 1024);

    /** How long stopping waits for each event loop group (they run no request, so they stop within their 1 s quiet period). */
    private static final long EVENT_LOOP_STOP_MS = 5_000;

    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final ChannelGroup connections;
    private final AtomicInteger openConnections = new AtomicInteger();
    private final ThrottledWarning connectionsRefused = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private final ThrottledWarning connectionsTooFast = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private final Channel serverChannel;

    /**
     * Binds {@link BrokerConfig#port()} and starts serving. When it cannot, it stops the event
     * loops it started and throws.
     *
     * @param budget where requests and responses in flight are counted; connections read no more while it is full
     * @throws IOException from bind, e.g. a {@link java.net.BindException} when the port is taken
     */
    public SocketServer(BrokerConfig config, KafkaApis apis, BrokerStats stats, RequestHandlerPool requestHandlers, MemoryBudget budget)
            throws IOException, InterruptedException {
        this.acceptors = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("broker-accept", true), NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("broker-io", true), NioIoHandler.newFactory());
        this.connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
        ConnectionStatsHandler statsHandler = new ConnectionStatsHandler(stats);
        // the handlers' CPU time to share: one core is left for what no share counts (reading requests, the followers, the collector)
        int sharedHandlers = Math.max(1, Math.min(config.requestHandlers(), Runtime.getRuntime().availableProcessors() - 1));
        int connectionsPerSecond = config.get(BrokerSettings.MAX_CONNECTION_RATE_PER_ADDRESS);
        ConnectionRateLimit connectionRate = new ConnectionRateLimit(connectionsPerSecond, System::nanoTime);
        int quotaWindowMs = config.get(BrokerSettings.REQUEST_QUOTA_WINDOW_MS);
        RequestTimeQuota handlersTime = new RequestTimeQuota(sharedHandlers, quotaWindowMs, System::nanoTime);
        RequestTimeQuota linkIn = new RequestTimeQuota(1, quotaWindowMs, System::nanoTime);
        RequestTimeQuota linkOut = new RequestTimeQuota(1, quotaWindowMs, System::nanoTime);
        long linkBytesPerSecond = config.get(BrokerSettings.NETWORK_BYTES_PER_SECOND);
        try {
            this.serverChannel = new ServerBootstrap()
                    .group(acceptors, workers)
                    .channel(NioServerSocketChannel.class)
                    .handler(new AcceptErrorHandler(new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime)))
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, UNWRITTEN_RESPONSES)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            InetSocketAddress remote = channel.remoteAddress();
                            if (remote != null && remote.getAddress() != null && !connectionRate.admit(remote.getAddress())) {
                                connectionsTooFast.warn("refusing connections from " + remote.getAddress().getHostAddress()
                                        + ": more than " + connectionsPerSecond + " a second from one address"
                                        + " (--max-connection-rate-per-address); a new one is closed at once");
                                channel.close();
                                return;
                            }
                            if (openConnections.incrementAndGet() > config.maxConnections()) {
                                openConnections.decrementAndGet();
                                connectionsRefused.warn("refusing connections: " + config.maxConnections()
                                        + " are open (--max-connections); a new one is closed at once");
                                channel.close();
                                return;
                            }
                            channel.closeFuture().addListener(closed -> openConnections.decrementAndGet());
                            connections.add(channel);
                            channel.pipeline()
                                    .addLast("stats", statsHandler)
                                    .addLast("idle", new IdleStateHandler(config.idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS))
                                    .addLast("frames", new LengthFieldBasedFrameDecoder(config.maxFrameBytes(), 0, 4, 0, 4))
                                    .addLast("length", new LengthFieldPrepender(4))
                                    .addLast("requests", new KafkaRequestHandler(apis, stats, config.maxInFlightPerConnection(),
                                            config.maxResponseBytes(), requestHandlers,
                                            new ConnectionQuota(handlersTime.newClient(), linkIn.newClient(), linkOut.newClient(),
                                                    linkBytesPerSecond), budget));
                        }
                    })
                    .bind(config.port())
                    .sync()
                    .channel();
        } catch (Exception e) { // sync() rethrows bind's checked exceptions (a BindException) undeclared
            shutDownEventLoops();
            if (e instanceof IOException io) {
                throw io;
            }
            if (e instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
        }
    }

    /** The port the listener is bound to (the one picked when the configured port was 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Stops accepting connections; the open ones are served on. */
    public void stopAccepting() {
        serverChannel.close().awaitUninterruptibly();
    }

    /**
     * Lets every connection write the responses it owes, then half-closes it so that its client
     * reads them all (requests arriving now are dropped), closes it when the client closes its side
     * or a second later, and stops the event loops. Waits at most {@value #CLOSE_TIMEOUT_MS} ms for
     * the connections, then closes those still open.
     */
    public void closeConnections() {
        for (Channel connection : connections) {
            connection.pipeline().fireUserEventTriggered(KafkaRequestHandler.ConnectionEvent.CLOSE_AFTER_FLUSH); // runs on its event loop
        }
        if (!connections.newCloseFuture().awaitUninterruptibly(CLOSE_TIMEOUT_MS)) {
            LOG.warn("connections still open after {} ms; closing them", CLOSE_TIMEOUT_MS);
            connections.close().awaitUninterruptibly();
        }
        shutDownEventLoops();
    }

    private void shutDownEventLoops() {
        acceptors.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(EVENT_LOOP_STOP_MS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(EVENT_LOOP_STOP_MS);
    }
}
