package io.purgatory.examples.kv;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpServerCodec;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.Waiters;
import io.purgatory.examples.common.EventLoopServer;
import io.purgatory.examples.common.ExampleServer;
import io.purgatory.micrometer.PurgatoryMeterBinder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The key-value server: a {@link KvStore}, the {@link Waiters} its blocking queries wait in (each
 * key's position is its index), their meters in Prometheus' format ({@code GET /metrics}, through
 * purgatory-micrometer), and a Netty HTTP/1.1 server ({@link EventLoopServer}) with a
 * {@link KvHandler} per connection.
 *
 * <p>{@link #close()} stops accepting, answers every parked query (503, through the waiters'
 * {@code close()}), waits until each event loop has written the answers handed to it, then stops
 * the event loops. Thread-safe: fields are final; close is idempotent.
 */
public final class KvServer implements ExampleServer {

    /** Largest request body (a value), in bytes. */
    private static final int MAX_CONTENT = 1 << 20;

    private final KvStore store = new KvStore();
    private final Waiters<String> waiters = new Waiters<>("kv", store::indexOf);
    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final EventLoopServer server;

    /**
     * Starts the server on address.
     *
     * @param defaultWait the wait of a blocking query that gives none
     * @param maxWait the longest wait a query gets, whatever it asks
     * @throws IOException if it cannot listen on address (a port in use, say); nothing is left running
     */
    public KvServer(InetSocketAddress address, Duration defaultWait, Duration maxWait) throws IOException, InterruptedException {
        new PurgatoryMeterBinder(waiters.metrics(), Tags.empty()).bindTo(meters);
        server = new EventLoopServer("kv server", address, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new HttpServerCodec(), new ValueSizeLimit(MAX_CONTENT),
                        new KvHandler(store, waiters, meters::scrape, defaultWait, maxWait));
            }
        }, waiters::close);
    }

    @Override
    public int port() {
        return server.port();
    }

    /** The metrics of the purgatory the blocking queries wait in: {@code delayed()} is how many are parked. */
    public PurgatoryMetrics waitMetrics() {
        return waiters.metrics();
    }

    @Override
    public void close() {
        server.close();
    }
}
