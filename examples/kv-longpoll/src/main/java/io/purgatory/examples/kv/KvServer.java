package io.purgatory.examples.kv;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.Waiters;
import io.purgatory.micrometer.PurgatoryMeterBinder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key-value server: a {@link KvStore}, the {@link Waiters} its blocking queries wait in (each
 * key's position is its index), their meters in Prometheus' format ({@code GET /metrics}, through
 * purgatory-micrometer), and a Netty HTTP/1.1 server with a {@link KvHandler} per connection.
 *
 * <p>{@link #close()} stops accepting, answers every parked query (503, through the waiters'
 * {@code close()}), waits until each event loop has written the answers handed to it, then stops
 * the event loops. Thread-safe: fields are final; close is idempotent (an atomic flag).
 */
public final class KvServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);
    /** Largest request body (a value), in bytes. */
    private static final int MAX_CONTENT = 1 << 20;
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final KvStore store = new KvStore();
    private final Waiters<String> waiters = new Waiters<>("kv", store::indexOf);
    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
    private final Channel serverChannel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the server on address.
     *
     * @param defaultWait the wait of a blocking query that gives none
     * @param maxWait the longest wait a query gets, whatever it asks
     * @throws IOException if it cannot listen on address (a port in use, say); nothing is left running
     */
    public KvServer(InetSocketAddress address, Duration defaultWait, Duration maxWait) throws IOException, InterruptedException {
        new PurgatoryMeterBinder(waiters.metrics(), Tags.empty()).bindTo(meters);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new ValueSizeLimit(MAX_CONTENT),
                                new KvHandler(store, waiters, meters::scrape, defaultWait, maxWait));
                    }
                });
        ChannelFuture bound;
        try {
            bound = bootstrap.bind(address).await();
        } catch (InterruptedException e) {
            shutDown();
            throw e;
        }
        if (!bound.isSuccess()) {
            shutDown();
            Throwable cause = bound.cause();
            throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        }
        serverChannel = bound.channel();
        LOG.info("kv server listening on {}", serverChannel.localAddress());
    }

    /** The port it listens on. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** The metrics of the purgatory the blocking queries wait in: {@code delayed()} is how many are parked. */
    public PurgatoryMetrics waitMetrics() {
        return waiters.metrics();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        serverChannel.close().syncUninterruptibly();
        shutDown();
        LOG.info("kv server stopped");
    }

    private void shutDown() {
        waiters.close(); // answers what is parked: each answer is a task on its connection's event loop
        for (EventExecutor loop : workers) {
            // a barrier: tasks run in order, so once this one has run, every answer queued before it is written
            loop.submit(() -> { }).syncUninterruptibly();
        }
        // no quiet period: nothing new arrives once the server channel is closed; queued writes still run
        Future<?> bossStopped = boss.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS).syncUninterruptibly();
        bossStopped.syncUninterruptibly();
    }
}
