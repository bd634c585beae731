package io.purgatory.demo.broker.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's HTTP endpoint: the live dashboard, its event stream, the replica controls and
 * {@code /metrics} (see {@link DashboardHandler}), on Netty's HTTP codec.
 *
 * <p>It runs on its own event loop group of one thread, {@code http-io}, apart from the Kafka
 * listener's, so no HTTP client can delay a Kafka request; and it bounds what a client can make it
 * hold: {@value #MAX_CONNECTIONS} connections (more are closed on accept), request lines of 4 KiB,
 * headers of 8 KiB, bodies of {@value #MAX_BODY_BYTES} bytes (more gets 413); a connection that
 * sends nothing for {@value #READ_TIMEOUT_SECONDS} s is closed (an event stream excepted), and so is
 * an event stream that does not read ({@link EventStream}).
 *
 * <p>Thread-safe: start it with {@link #start}; {@link #close()} is idempotent and may be called
 * from any thread. Everything else runs on the {@code http-io} thread: the connections, the handler
 * and the once-a-second {@link EventStream#tick()}.
 */
public final class DashboardServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    static final int MAX_CONNECTIONS = 32;
    static final int MAX_BODY_BYTES = 16 * 1024;
    static final int READ_TIMEOUT_SECONDS = 10;
    /** Samples kept for a new page's charts: three minutes. */
    private static final int HISTORY_SAMPLES = 180;
    /** The dashboard's memory budget: characters of JSON its history keeps at most (one byte each, as Java keeps ASCII). */
    static final long HISTORY_BUDGET_CHARS = 16L << 20;
    private static final long SAMPLE_PERIOD_MS = 1_000;

    private final EventLoopGroup group;
    private final ChannelGroup connections;
    private final Channel serverChannel;
    private final ScheduledFuture<?> sampling;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DashboardServer(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats, String host, int port) throws InterruptedException {
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("http-io", true), NioIoHandler.newFactory());
        EventLoop loop = group.next();
        this.connections = new DefaultChannelGroup("http-connections", loop);
        try {
            Sampler sampler = new Sampler(replicaManager, coordinator, stats);
            EventStream events = loop.submit(() -> new EventStream(sampler::sample, HISTORY_SAMPLES, HISTORY_BUDGET_CHARS)).get();
            MetricsExporter metrics = new MetricsExporter(replicaManager, coordinator, stats);
            DashboardHandler handler = new DashboardHandler(replicaManager, new StaticAssets(), metrics, events);
            this.serverChannel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            if (connections.size() >= MAX_CONNECTIONS) {
                                LOG.warn("refusing HTTP connection from {}: {} open already", channel.remoteAddress(), MAX_CONNECTIONS);
                                channel.close();
                                return;
                            }
                            connections.add(channel);
                            channel.pipeline()
                                    .addLast(new ReadTimeoutHandler(READ_TIMEOUT_SECONDS))
                                    .addLast(new HttpServerCodec(4096, 8192, 8192))
                                    .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                                    .addLast(handler);
                        }
                    })
                    .bind(host, port)
                    .sync()
                    .channel();
            this.sampling = loop.scheduleAtFixedRate(events::tick, SAMPLE_PERIOD_MS, SAMPLE_PERIOD_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            throw e;
        } catch (ExecutionException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            throw new IllegalStateException("cannot take the first sample", e.getCause());
        }
    }

    /**
     * Serves the dashboard of {@code broker} on {@code host:port}; port 0 picks a free one.
     *
     * @throws io.netty.channel.ChannelException or another exception from bind, e.g. when the port
     *     is taken or the host is not a local address
     */
    public static DashboardServer start(ReplicaManager replicaManager, GroupCoordinator coordinator, BrokerStats stats, String host, int port)
            throws InterruptedException {
        DashboardServer server = new DashboardServer(replicaManager, coordinator, stats, host, port);
        LOG.info("dashboard at {} (metrics at {}metrics)", server.url(), server.url());
        return server;
    }

    /** The port the dashboard listens on (the one picked when the configured port was 0). */
    public int port() {
        return address().getPort();
    }

    /** The dashboard's address, e.g. {@code http://127.0.0.1:8080/}. */
    public String url() {
        InetSocketAddress address = address();
        String host = address.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort() + "/";
    }

    /** Stops serving: closes the listening socket, every connection and the event loop. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        sampling.cancel(false);
        serverChannel.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }
}
