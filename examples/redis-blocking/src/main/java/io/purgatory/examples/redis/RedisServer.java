package io.purgatory.examples.redis;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.purgatory.HandOff;
import io.purgatory.PurgatoryMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server: a {@link Keyspace} of lists, the {@link HandOff} its blocking pops wait in, and a
 * Netty server (epoll on Linux, else NIO) speaking the Redis protocol, a {@link RespDecoder} and a {@link ClientConnection}
 * per connection, on one event loop per core.
 *
 * <p>{@link #close()} stops accepting, closes the hand-off (every parked pop's connection is then
 * closed, as a stopping Redis closes its clients), waits until each event loop has run what was
 * handed to it, then stops the event loops. Thread-safe: fields are final; close is idempotent.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 5;

    private final Keyspace keyspace = new Keyspace();
    private final HandOff<String, byte[]> handOff = HandOff.<String, byte[]>builder("redis-blocking-pops").build();
    private final ServerStats stats = new ServerStats();
    /** Linux's epoll where Netty's native transport loads (fewer system calls than NIO's selector), else NIO. */
    private static final boolean EPOLL = Epoll.isAvailable();

    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, ioHandlers());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(), ioHandlers());
    private final AtomicLong clientIds = new AtomicLong();
    private final Channel serverChannel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the server on address.
     *
     * @throws IOException if it cannot listen on address (a port in use, say); nothing is left running
     */
    public RedisServer(InetSocketAddress address) throws IOException, InterruptedException {
        BlockingPops blockingPops = new BlockingPops(keyspace, handOff, stats);
        ServerInfo info = new ServerInfo(stats, handOff.metrics(), keyspace, this::port);
        Commands commands = new Commands(keyspace, blockingPops, stats, info::text);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new RespDecoder(), new ClientConnection(commands, stats, clientIds.incrementAndGet()));
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
        LOG.info("redis-blocking server listening on {}", serverChannel.localAddress());
    }

    private static IoHandlerFactory ioHandlers() {
        return EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** The port it listens on. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** The metrics of the hand-off the blocking pops wait in: {@code delayed()} is how many are parked. */
    public PurgatoryMetrics handOffMetrics() {
        return handOff.metrics();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        serverChannel.close().syncUninterruptibly();
        shutDown();
        LOG.info("redis-blocking server stopped");
    }

    private void shutDown() {
        handOff.close(); // answers what is parked: each answer is a task on its connection's event loop
        for (EventExecutor loop : workers) {
            // a barrier: tasks run in order, so once this one has run, every answer queued before it is done
            loop.submit(() -> { }).syncUninterruptibly();
        }
        Future<?> bossStopped = boss.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS).syncUninterruptibly();
        bossStopped.syncUninterruptibly();
    }
}
