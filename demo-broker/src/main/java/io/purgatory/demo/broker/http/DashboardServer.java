package io.purgatory.demo.broker.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * hold: {@value #MAX_CONNECTIONS} connections, {@value #MAX_CONNECTIONS_PER_ADDRESS} from one
 * address (a new one past either takes the place of the one waiting longest for its next request, or
 * is refused when all are being answered: {@link DashboardConnections}; connections are accepted
 * one at a time between reads, so that a flood of them cannot take the place of a client whose
 * request has come but is not read yet), request lines of 4 KiB,
 * headers of 8 KiB, bodies of {@value #MAX_BODY_BYTES} bytes (more gets 413); a request must arrive
 * whole within {@value #REQUEST_DEADLINE_MS} ms of the connection or of the previous response, and
 * pipelined requests are answered one at a time, for clients still connected
 * ({@link HttpConnectionGuard}); an event stream that does not read is closed ({@link EventStream}).
 * {@code /metrics} is rendered on a thread of its own, {@code http-metrics}, once for every scrape
 * that comes while it renders and at most once a second while others are being answered
 * ({@link RecentScrape}), and streamed in chunks as the client reads, at most
 * {@value DashboardHandler#MAX_SCRAPES} at a time.
 *
 * <p>Thread-safe: start it with {@link #start}; {@link #close()} is idempotent and may be called
 * from any thread. Everything else runs on the {@code http-io} thread: the connections, the handler
 * and the once-a-second {@link EventStream#tick()}; only the renderings of {@code /metrics} run on
 * {@code http-metrics}.
 */
public final class DashboardServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    static final int MAX_CONNECTIONS = 32;
    static final int MAX_CONNECTIONS_PER_ADDRESS = 16;
    static final int MAX_BODY_BYTES = 16 * 1024;
    /** How long a client has to send a whole request, from its connection or its previous response. */
    static final long REQUEST_DEADLINE_MS = 10_000;
    /** How long a {@code /metrics} rendering is served again. */
    static final long SCRAPE_MAX_AGE_MS = 1_000;
    /** Refused connections are logged at most once per this period, with a count. */
    static final long REFUSAL_WARNING_PERIOD_MS = 10_000;
    /** Samples kept for a new page's charts: three minutes. */
    private static final int HISTORY_SAMPLES = 180;
    /** The dashboard's memory budget: characters of JSON its history keeps at most (one byte each, as Java keeps ASCII). */
    static final long HISTORY_BUDGET_CHARS = 16L << 20;
    private static final long SAMPLE_PERIOD_MS = 1_000;

    private final EventLoopGroup group;
    private final ExecutorService renderer = Executors.newSingleThreadExecutor(new DefaultThreadFactory("http-metrics", true));
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
            DashboardHandler handler = new DashboardHandler(replicaManager, new StaticAssets(),
                    new RecentScrape(metrics::scrape, renderer, SCRAPE_MAX_AGE_MS, System::nanoTime), events);
            DashboardConnections admitted = new DashboardConnections(MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS,
                    new ThrottledWarning(LOG::warn, REFUSAL_WARNING_PERIOD_MS, System::nanoTime));
            this.serverChannel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    // one accept at a time between reads: a flood of connects cannot take a new client's place before its request is read
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new ServerChannelRecvByteBufAllocator().maxMessagesPerRead(1))
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            HttpConnectionGuard guard = new HttpConnectionGuard(REQUEST_DEADLINE_MS, System::nanoTime);
                            if (!admitted.admit(channel, guard)) {
                                return;
                            }
                            connections.add(channel);
                            serve(channel, guard, handler);
                        }
                    })
                    .bind(host, port)
                    .sync()
                    .channel();
            this.sampling = loop.scheduleAtFixedRate(events::tick, SAMPLE_PERIOD_MS, SAMPLE_PERIOD_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException | RuntimeException e) {
            stopThreads();
            throw e;
        } catch (ExecutionException e) {
            stopThreads();
            throw new IllegalStateException("cannot take the first sample", e.getCause());
        }
    }

    /** Puts the dashboard's handlers on an accepted connection's pipeline: HTTP's codec with its limits, {@code guard}, then {@code handler}. */
    static void serve(Channel channel, HttpConnectionGuard guard, DashboardHandler handler) {
        channel.pipeline()
                .addLast(new HttpServerCodec(4096, 8192, 8192))
                .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                .addLast(new ChunkedWriteHandler())
                .addLast(guard)
                .addLast(handler);
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
        stopThreads();
    }

    private void stopThreads() {
        renderer.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }
}
