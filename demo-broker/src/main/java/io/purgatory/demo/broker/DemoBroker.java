package io.purgatory.demo.broker;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
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
import io.purgatory.PurgatoryMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo broker: a Netty server that speaks the Kafka wire protocol for produce and fetch, in
 * front of a {@link ReplicaManager} whose {@code acks=-1} produces wait in the {@code produce}
 * {@link io.purgatory.DelayedOperationPurgatory} for simulated followers, and whose long-polling
 * fetches wait in the {@code fetch} purgatory for the high watermark to bring them data.
 *
 * <p>Frames are a 4-byte big-endian length and a request; a negative length or one above
 * {@link BrokerConfig#maxFrameBytes()} closes that connection. A connection with
 * {@link BrokerConfig#maxInFlightPerConnection()} requests awaiting responses is not read from
 * until one is answered. A connection that closes takes its parked produces out of the purgatory.
 * Past {@link BrokerConfig#maxConnections()} open connections a new one is accepted and closed at
 * once; a connection with nothing in flight that sends nothing for
 * {@link BrokerConfig#idleTimeoutMs()} is closed. Refused connections and failing accepts (no file
 * descriptors left) are logged at most once every {@value #WARNING_PERIOD_MS} ms.
 *
 * <p>{@link #close()} loses no request: it stops accepting, answers every parked produce (the
 * partitions still waiting get {@code NOT_LEADER_OR_FOLLOWER}, as from a Kafka leader that moves
 * away) and every parked fetch (with what is there), waits until those responses are flushed,
 * half-closes each connection so that its client reads them all (requests arriving now are
 * dropped), closes it when the client closes its side or a second later, and stops the event loops.
 *
 * <p>Thread-safe: start it with {@link #start}; {@link #close()} is idempotent and may be called
 * from any thread (a shutdown hook, say). {@code openConnections} is atomic; {@code closed} is
 * guarded by {@code closeLock}.
 */
public final class DemoBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DemoBroker.class);
    private static final long CLOSE_TIMEOUT_MS = 10_000;
    /** A resource problem (connections refused, accepts failing) is logged at most once per this period. */
    static final long WARNING_PERIOD_MS = 10_000;

    private final BrokerConfig config;
    private final ReplicaManager replicaManager;
    private final BrokerStats stats = new BrokerStats();
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final ChannelGroup connections;
    private final AtomicInteger openConnections = new AtomicInteger();
    private final ThrottledWarning connectionsRefused = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private final Channel serverChannel;
    private final Object closeLock = new Object();
    private boolean closed; // guarded by closeLock

    private DemoBroker(BrokerConfig config) throws IOException, InterruptedException {
        this.config = config;
        this.replicaManager = new ReplicaManager(config);
        KafkaApis apis = new KafkaApis(replicaManager, stats);
        this.acceptors = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("broker-accept", true), NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("broker-io", true), NioIoHandler.newFactory());
        this.connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
        try {
            this.serverChannel = new ServerBootstrap()
                    .group(acceptors, workers)
                    .channel(NioServerSocketChannel.class)
                    .handler(new AcceptErrorHandler(new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime)))
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
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
                                    .addLast("stats", stats.channelCounter())
                                    .addLast("idle", new IdleStateHandler(config.idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS))
                                    .addLast("frames", new LengthFieldBasedFrameDecoder(config.maxFrameBytes(), 0, 4, 0, 4))
                                    .addLast("length", new LengthFieldPrepender(4))
                                    .addLast("requests", new KafkaRequestHandler(apis, stats, config.maxInFlightPerConnection()));
                        }
                    })
                    .bind(config.port())
                    .sync()
                    .channel();
        } catch (Exception e) { // sync() rethrows bind's checked exceptions (a BindException) undeclared
            shutDownEventLoops();
            replicaManager.close();
            if (e instanceof IOException io) {
                throw io;
            }
            if (e instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
        }
    }

    /**
     * Binds the port and starts serving. When it cannot, it releases everything it started (event
     * loops, the purgatory with its timer, reaper and JMX name, the follower thread) and throws.
     *
     * @throws IOException from bind, e.g. a {@link java.net.BindException} when the port is taken
     */
    public static DemoBroker start(BrokerConfig config) throws IOException, InterruptedException {
        DemoBroker broker = new DemoBroker(config);
        LOG.info("demo broker listening on port {}: topics {}, {} follower(s) per partition, replica lag {}±{} ms, min.insync.replicas {}",
                broker.port(), config.topics(), config.followers(), config.replicaLagMs(), config.replicaLagJitterMs(),
                config.minInsyncReplicas());
        return broker;
    }

    /** The port the broker listens on (the one picked when the configured port was 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public BrokerConfig config() {
        return config;
    }

    /** Stalls a follower replica (1..followers) on every partition until {@link #resumeReplica}. */
    public void stallReplica(int replicaId) {
        replicaManager.followers().stall(replicaId);
    }

    /** Lets a stalled follower fetch again; it catches up after one replication lag. */
    public void resumeReplica(int replicaId) {
        replicaManager.followers().resume(replicaId);
    }

    /** The ISR of a partition, leader (replica 0) first. */
    public List<Integer> isr(String topic, int partition) {
        return partition(topic, partition).isr();
    }

    /** How many times a follower replica (1..followers) has been dropped from a partition's ISR. */
    public int timesLeftIsr(String topic, int partition, int replicaId) {
        return partition(topic, partition).timesLeftIsr(replicaId);
    }

    /** The leader's log end offset of a partition: the number of records appended to it. */
    public long logEndOffset(String topic, int partition) {
        return partition(topic, partition).leaderEndOffset();
    }

    /** acks=-1 produces parked in the purgatory now, waiting for replicas or their timeout. */
    public long parkedProduces() {
        return replicaManager.parkedProduces();
    }

    /** Completed, expired and parked counts of the produce purgatory. */
    public PurgatoryMetrics producePurgatoryMetrics() {
        return replicaManager.producePurgatoryMetrics();
    }

    /** Sets a follower replica's (1..followers) mean fetch lag on every partition, from its next fetch on. */
    public void setReplicaLag(int replicaId, long lagMs) {
        replicaManager.followers().setLag(replicaId, lagMs);
    }

    /** A follower replica's (1..followers) mean fetch lag. */
    public long replicaLagMs(int replicaId) {
        return replicaManager.followers().lagMs(replicaId);
    }

    /** Whether a follower replica (1..followers) is stalled now. */
    public boolean isReplicaStalled(int replicaId) {
        if (replicaId < 1 || replicaId > config.followers()) {
            throw new IllegalArgumentException("no follower replica " + replicaId + ": followers are 1.." + config.followers());
        }
        return replicaManager.followers().isStalled(replicaId);
    }

    /** Every partition's offsets and ISR, topics in configuration order; each partition read atomically. */
    public List<PartitionState> partitionStates() {
        List<PartitionState> states = new ArrayList<>();
        for (ReplicaManager.Topic topic : replicaManager.topics()) {
            topic.partitions().forEach(partition -> states.add(partition.snapshot()));
        }
        return states;
    }

    /** The metrics of every purgatory the broker has. */
    public List<PurgatoryMetrics> purgatoryMetrics() {
        return List.of(replicaManager.producePurgatoryMetrics(), replicaManager.fetchPurgatoryMetrics());
    }

    /** Connections, bytes, requests and response error codes of the Kafka listener. */
    public BrokerStats stats() {
        return stats;
    }

    /** Completed, expired and parked counts of the fetch purgatory (long-polling fetches). */
    public PurgatoryMetrics fetchPurgatoryMetrics() {
        return replicaManager.fetchPurgatoryMetrics();
    }

    /** A partition's high watermark: consumers read below it. */
    public long highWatermark(String topic, int partition) {
        return partition(topic, partition).highWatermark();
    }

    /** A partition's log start offset: retention dropped the records below it. */
    public long logStartOffset(String topic, int partition) {
        return partition(topic, partition).read((log, highWatermark) -> log.logStartOffset());
    }

    /** Bytes of record batches a partition's log holds. */
    public long logSizeBytes(String topic, int partition) {
        return partition(topic, partition).read((log, highWatermark) -> log.sizeInBytes());
    }

    /** Stops the broker after answering every parked request; see the class comment. */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LOG.info("demo broker shutting down: answering {} parked produce and {} parked fetch request(s)",
                replicaManager.producePurgatoryMetrics().delayed(), replicaManager.fetchPurgatoryMetrics().delayed());
        serverChannel.close().awaitUninterruptibly();
        replicaManager.close();
        for (Channel connection : connections) {
            connection.pipeline().fireUserEventTriggered(KafkaRequestHandler.ConnectionEvent.CLOSE_AFTER_FLUSH); // runs on its event loop
        }
        if (!connections.newCloseFuture().awaitUninterruptibly(CLOSE_TIMEOUT_MS)) {
            LOG.warn("connections still open after {} ms; closing them", CLOSE_TIMEOUT_MS);
            connections.close().awaitUninterruptibly();
        }
        shutDownEventLoops();
        LOG.info("demo broker stopped");
    }

    private Partition partition(String topic, int partition) {
        ReplicaManager.Topic t = replicaManager.topic(topic);
        Partition p = t == null ? null : t.partition(partition);
        if (p == null) {
            throw new IllegalArgumentException("no partition " + topic + "-" + partition);
        }
        return p;
    }

    private void shutDownEventLoops() {
        acceptors.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
