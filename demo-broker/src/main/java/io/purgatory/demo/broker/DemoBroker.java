package io.purgatory.demo.broker;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.network.RequestHandlerPool;
import io.purgatory.demo.broker.network.SocketServer;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import io.purgatory.demo.broker.server.KafkaApis;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo broker: starts and stops its parts, as Kafka's {@code BrokerServer} does. A
 * {@link SocketServer} (the Kafka listener) hands requests to the {@link RequestHandlerPool}'s
 * threads, which run {@link KafkaApis}, in front of a
 * {@link ReplicaManager} whose {@code acks=-1} produces wait in the {@code produce}
 * {@link io.purgatory.DelayedOperationPurgatory} for the {@link SimulatedFollowers}, and whose
 * long-polling fetches wait in the {@code fetch} purgatory for the high watermark to bring them
 * data; and of a {@link GroupCoordinator} whose rebalances wait in the {@code rebalance} purgatory and
 * whose member sessions wait in the {@code heartbeat} purgatory. What the dashboard and tests read
 * comes from the parts that own it: {@link #replicaManager()} (partitions, purgatories),
 * {@link #coordinator()} (groups, offsets), {@link #followers()} (stall, resume, lag) and
 * {@link #stats()} (the listener's counters). One {@link MemoryBudget} ({@link #memoryBudget()}) counts
 * what clients make the parts hold: the logs and parked operations (replica manager), groups and
 * offsets (coordinator), requests and responses in flight (listener).
 *
 * <p>{@link #close()} loses no request: it stops accepting, answers every parked JoinGroup and
 * SyncGroup with {@code NOT_COORDINATOR} (a Kafka client looks for the coordinator again), every parked produce (the
 * partitions still waiting get {@code NOT_LEADER_OR_FOLLOWER}, as from a Kafka leader that moves
 * away) and every parked fetch (with what is there), then lets each connection write what it owes
 * and closes it ({@link SocketServer#closeConnections()}), at most 10 s later, and stops the request
 * handlers, waiting at most a second for one that is still busy.
 *
 * <p>Thread-safe: start it with {@link #start}; {@link #close()} is idempotent and may be called
 * from any thread (a shutdown hook, say). {@code closed} is guarded by {@code closeLock}.
 */
public final class DemoBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DemoBroker.class);

    private final BrokerConfig config;
    private final ReplicaManager replicaManager;
    private final GroupCoordinator coordinator;
    private final BrokerStats stats = new BrokerStats();
    private final MemoryBudget memoryBudget;
    private final RequestHandlerPool requestHandlers;
    private final ScheduledExecutorService offsetExpiry;
    private final SocketServer socketServer;
    private final Object closeLock = new Object();
    @GuardedBy("closeLock")
    private boolean closed;

    private DemoBroker(BrokerConfig config) throws IOException, InterruptedException {
        this.config = config;
        this.memoryBudget = MemoryBudget.of(config.memoryBudgetBytes());
        this.replicaManager = new ReplicaManager(config, memoryBudget);
        this.coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config), memoryBudget);
        this.requestHandlers = new RequestHandlerPool(config.requestHandlers());
        this.offsetExpiry = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "offset-expiry");
            thread.setDaemon(true);
            return thread;
        });
        offsetExpiry.scheduleWithFixedDelay(this::expireOffsets, config.offsetsRetentionCheckIntervalMs(),
                config.offsetsRetentionCheckIntervalMs(), TimeUnit.MILLISECONDS);
        try {
            this.socketServer = new SocketServer(config, new KafkaApis(replicaManager, coordinator, stats), stats, requestHandlers,
                    memoryBudget);
        } catch (IOException | InterruptedException | RuntimeException e) {
            requestHandlers.close();
            offsetExpiry.shutdownNow();
            coordinator.close();
            replicaManager.close();
            throw e;
        }
    }

    /**
     * Binds the port and starts serving. When it cannot, it releases everything it started (event
     * loops, the purgatories with their timers, reapers and JMX names, the follower thread) and throws.
     *
     * @throws IOException from bind, e.g. a {@link java.net.BindException} when the port is taken
     */
    public static DemoBroker start(BrokerConfig config) throws IOException, InterruptedException {
        DemoBroker broker = new DemoBroker(config);
        LOG.info("demo broker listening on port {}: topics {}, {} follower(s) per partition, replica lag {}±{} ms, min.insync.replicas {},"
                        + " memory budget {} bytes", broker.port(), config.topics(), config.followers(), config.replicaLagMs(),
                config.replicaLagJitterMs(), config.minInsyncReplicas(), broker.memoryBudget.limitBytes());
        return broker;
    }

    /** The port the broker listens on (the one picked when the configured port was 0). */
    public int port() {
        return socketServer.port();
    }

    public BrokerConfig config() {
        return config;
    }

    /** The partitions, their logs and ISRs, and the produce and fetch purgatories. */
    public ReplicaManager replicaManager() {
        return replicaManager;
    }

    /** The group coordinator: groups, members, committed offsets, the rebalance and heartbeat purgatories. */
    public GroupCoordinator coordinator() {
        return coordinator;
    }

    /** The simulated follower replicas: stall, resume, lag. */
    public SimulatedFollowers followers() {
        return replicaManager.followers();
    }

    /** What clients make the broker hold, counted by kind, and the refusals past each share. */
    public MemoryBudget memoryBudget() {
        return memoryBudget;
    }

    /** Connections, bytes, requests and response error codes of the Kafka listener. */
    public BrokerStats stats() {
        return stats;
    }

    /** One offset retention check; a failure is logged and the next check runs as planned. */
    private void expireOffsets() {
        try {
            coordinator.admin().expireOffsets();
        } catch (RuntimeException e) {
            LOG.error("offset retention check failed; the next one runs in {} ms", config.offsetsRetentionCheckIntervalMs(), e);
        }
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
        socketServer.stopAccepting();
        offsetExpiry.shutdownNow();
        coordinator.close();
        replicaManager.close();
        socketServer.closeConnections();
        requestHandlers.close();
        LOG.info("demo broker stopped");
    }
}
