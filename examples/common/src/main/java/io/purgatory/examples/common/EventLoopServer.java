package io.purgatory.examples.common;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
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
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Netty server socket and its event loops (epoll on Linux where Netty's native transport loads,
 * else NIO; one accepting loop, one worker loop per core), started and stopped in the order an
 * example server needs so that no parked request is lost at shutdown.
 *
 * <p>{@link #close()} stops accepting, then runs the server's {@code release} action (closing its
 * purgatory, which answers every parked request: each answer is a task on its connection's event
 * loop), then waits until every worker loop has run what was handed to it before (tasks run in
 * order, so an empty task is a barrier), then stops the loops without a quiet period: nothing new
 * arrives once the server socket is closed.
 *
 * <p>Thread-safe: the fields are final; {@code close} is idempotent (an atomic flag).
 */
public final class EventLoopServer implements ExampleServer {

    private static final Logger LOG = LoggerFactory.getLogger(EventLoopServer.class);
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 5;
    private static final boolean EPOLL = Epoll.isAvailable();

    private final String name;
    private final Runnable release;
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, ioHandlers());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(), ioHandlers());
    private final Channel serverChannel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Listens on address, each accepted connection set up by childHandler.
     *
     * @param name the server's name in its log lines
     * @param release what {@link #close()} runs once the socket is closed and before the loops stop:
     *     the server's purgatory's {@code close()}, which answers what is parked
     * @throws IOException if it cannot listen on address (a port in use, say); nothing is left running
     * @throws InterruptedException if interrupted while binding; nothing is left running
     */
    public EventLoopServer(String name, InetSocketAddress address, ChannelHandler childHandler, Runnable release)
            throws IOException, InterruptedException {
        this.name = name;
        this.release = release;
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(childHandler);
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
        LOG.info("{} listening on {}", name, serverChannel.localAddress());
    }

    private static IoHandlerFactory ioHandlers() {
        return EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    @Override
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        serverChannel.close().syncUninterruptibly();
        shutDown();
        LOG.info("{} stopped", name);
    }

    private void shutDown() {
        release.run();
        for (EventExecutor loop : workers) {
            loop.submit(() -> { }).syncUninterruptibly();
        }
        Future<?> bossStopped = boss.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS).syncUninterruptibly();
        bossStopped.syncUninterruptibly();
    }
}
