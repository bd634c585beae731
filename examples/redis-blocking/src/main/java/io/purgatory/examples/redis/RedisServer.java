package io.purgatory.examples.redis;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.purgatory.HandOff;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.examples.common.EventLoopServer;
import io.purgatory.examples.common.ExampleServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server: a {@link Keyspace} of lists, the {@link HandOff} its blocking pops wait in, and a
 * Netty server ({@link EventLoopServer}: epoll on Linux, else NIO, one event loop per core) speaking
 * the Redis protocol, a {@link RespDecoder} and a {@link ClientConnection} per connection.
 *
 * <p>{@link #close()} stops accepting, closes the hand-off (every parked pop's connection is then
 * closed, as a stopping Redis closes its clients), waits until each event loop has run what was
 * handed to it, then stops the event loops. Thread-safe: fields are final; close is idempotent.
 */
public final class RedisServer implements ExampleServer {

    private final Keyspace keyspace = new Keyspace();
    private final HandOff<String, byte[]> handOff = HandOff.<String, byte[]>builder("redis-blocking-pops").build();
    private final ServerStats stats = new ServerStats();
    private final AtomicLong clientIds = new AtomicLong();
    private final EventLoopServer server;

    /**
     * Starts the server on address.
     *
     * @throws IOException if it cannot listen on address (a port in use, say); nothing is left running
     */
    public RedisServer(InetSocketAddress address) throws IOException, InterruptedException {
        BlockingPops blockingPops = new BlockingPops(keyspace, handOff, stats);
        ServerInfo info = new ServerInfo(stats, handOff.metrics(), keyspace, this::port);
        Commands commands = new Commands(keyspace, blockingPops, stats, info::text);
        server = new EventLoopServer("redis-blocking server", address, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new RespDecoder(), new ClientConnection(commands, stats, clientIds.incrementAndGet()));
            }
        }, handOff::close);
    }

    @Override
    public int port() {
        return server.port();
    }

    /** The metrics of the hand-off the blocking pops wait in: {@code delayed()} is how many are parked. */
    public PurgatoryMetrics handOffMetrics() {
        return handOff.metrics();
    }

    @Override
    public void close() {
        server.close();
    }
}
