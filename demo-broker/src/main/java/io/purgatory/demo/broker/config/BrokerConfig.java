package io.purgatory.demo.broker.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What the demo broker serves and how its simulated followers behave. Immutable; build one with
 * {@link #builder()}, whose defaults are the command line's.
 *
 * @param port TCP port to listen on; 0 picks a free one
 * @param topics topic name to partition count, in the order given
 * @param followers simulated follower replicas per partition (replica ids 1..followers)
 * @param replicaLagMs mean delay between a leader append and a follower fetching it
 * @param replicaLagJitterMs the lag is uniform in {@code [mean - jitter, mean + jitter]}
 * @param stalledReplicas follower ids that stall
 * @param stallMs how long each stall lasts; 0 means the stalled replicas never resume
 * @param healthyMs with {@code stallMs > 0}: time before the first stall and between stalls
 * @param stallAfterMs with {@code stallMs == 0}: time before the stalled replicas stall for good
 * @param replicaLagTimeMaxMs a follower not caught up for longer than this leaves the ISR
 * @param minInsyncReplicas acks=-1 needs at least this many ISR replicas, leader included
 * @param maxFrameBytes largest request frame accepted; a larger one closes the connection
 * @param maxInFlightPerConnection requests a connection may have awaiting responses before the
 *     broker stops reading from it
 * @param retentionBytes bytes of record batches each partition's log keeps; the oldest batches
 *     beyond it are dropped (the newest one always stays)
 * @param maxParkedRequests acks=-1 produces the purgatory may hold in total; past it one is answered
 *     at once with {@code THROTTLING_QUOTA_EXCEEDED} and appends nothing
 * @param maxConnections open client connections; past it a new one is accepted and closed at once
 * @param idleTimeoutMs a connection with no request in flight that reads nothing for this long is
 *     closed (Kafka's {@code connections.max.idle.ms})
 */
public record BrokerConfig(
        int port,
        Map<String, Integer> topics,
        int followers,
        long replicaLagMs,
        long replicaLagJitterMs,
        Set<Integer> stalledReplicas,
        long stallMs,
        long healthyMs,
        long stallAfterMs,
        long replicaLagTimeMaxMs,
        int minInsyncReplicas,
        int maxFrameBytes,
        int maxInFlightPerConnection,
        long retentionBytes,
        int maxParkedRequests,
        int maxConnections,
        long idleTimeoutMs) {

    public static final int DEFAULT_PORT = 9092;
    public static final String DEFAULT_TOPIC = "demo";
    public static final int DEFAULT_PARTITIONS = 3;
    public static final long DEFAULT_RETENTION_BYTES = 64L * 1024 * 1024;
    /** Kafka's legal topic names ({@code org.apache.kafka.common.internals.Topic}), "." and ".." aside. */
    private static final Pattern LEGAL_TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    public BrokerConfig {
        topics = Collections.unmodifiableMap(new LinkedHashMap<>(topics));
        stalledReplicas = Collections.unmodifiableSet(new TreeSet<>(stalledReplicas));
        require(port >= 0 && port <= 65_535, "port must be 0..65535, was " + port);
        require(!topics.isEmpty(), "at least one topic is needed");
        topics.forEach((name, partitions) -> {
            require(LEGAL_TOPIC_NAME.matcher(name).matches() && !name.equals(".") && !name.equals(".."),
                    "topic name '" + name + "' is not valid: use 1 to 249 of a-z A-Z 0-9 . _ - (Kafka's rule)");
            require(partitions > 0, "topic " + name + " needs at least one partition, was " + partitions);
        });
        require(followers >= 0, "followers must be >= 0, was " + followers);
        require(replicaLagMs >= 0 && replicaLagJitterMs >= 0, "replica lag and jitter must be >= 0");
        require(replicaLagJitterMs <= replicaLagMs, "the replica lag jitter (" + replicaLagJitterMs
                + " ms) must not exceed the lag (" + replicaLagMs + " ms): a lag is uniform in [lag - jitter, lag + jitter]");
        stalledReplicas.forEach(id -> require(id >= 1 && id <= followers,
                "stalled replica " + id + " does not exist: followers are 1.." + followers));
        require(stallMs >= 0 && healthyMs >= 0, "stall and healthy times must be >= 0");
        require(stallMs == 0 || healthyMs > 0, "with a stall time, the healthy time must be > 0");
        require(stallAfterMs >= 0, "the time before the stall must be >= 0, was " + stallAfterMs);
        require(stallAfterMs == 0 || stallMs == 0, "a delayed stall lasts for good: with a stall time, the healthy time is the delay");
        require(replicaLagTimeMaxMs > 0, "replica lag time max must be > 0");
        require(minInsyncReplicas >= 1 && minInsyncReplicas <= followers + 1,
                "min in-sync replicas must be 1.." + (followers + 1) + " (leader + followers), was " + minInsyncReplicas);
        require(maxFrameBytes >= 1024, "max frame bytes must be >= 1024, was " + maxFrameBytes);
        require(maxInFlightPerConnection >= 1, "max in-flight requests per connection must be >= 1, was " + maxInFlightPerConnection);
        require(retentionBytes >= 1, "retention bytes must be >= 1, was " + retentionBytes);
        require(maxParkedRequests >= 1, "max parked requests must be >= 1, was " + maxParkedRequests);
        require(maxConnections >= 1, "max connections must be >= 1, was " + maxConnections);
        require(idleTimeoutMs >= 1, "idle timeout must be >= 1 ms, was " + idleTimeoutMs);
    }

    public static Builder builder() {
        return new Builder();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Builds a {@link BrokerConfig}; not thread-safe. */
    public static final class Builder {
        private int port = DEFAULT_PORT;
        private final Map<String, Integer> topics = new LinkedHashMap<>();
        private int followers = 2;
        private long replicaLagMs = 5;
        private long replicaLagJitterMs = 2;
        private final Set<Integer> stalledReplicas = new TreeSet<>();
        private long stallMs;
        private long healthyMs = 3_000;
        private long stallAfterMs;
        private long replicaLagTimeMaxMs = 30_000;
        private int minInsyncReplicas = 2;
        private int maxFrameBytes = 16 * 1024 * 1024;
        private int maxInFlightPerConnection = 1024;
        private long retentionBytes = DEFAULT_RETENTION_BYTES;
        private int maxParkedRequests = 100_000;
        private int maxConnections = 1_000;
        private long idleTimeoutMs = 600_000;

        private Builder() {
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Adds a topic; with none added, the broker serves {@value #DEFAULT_TOPIC} with 3 partitions. */
        public Builder topic(String name, int partitions) {
            topics.put(name, partitions);
            return this;
        }

        public Builder followers(int followers) {
            this.followers = followers;
            return this;
        }

        public Builder replicaLag(long meanMs, long jitterMs) {
            this.replicaLagMs = meanMs;
            this.replicaLagJitterMs = jitterMs;
            return this;
        }

        public Builder stallReplica(int replicaId) {
            stalledReplicas.add(replicaId);
            return this;
        }

        /** Stalled replicas stall for {@code stallMs} after every {@code healthyMs} of fetching. */
        public Builder stallCycle(long stallMs, long healthyMs) {
            this.stallMs = stallMs;
            this.healthyMs = healthyMs;
            return this;
        }

        /** The stalled replicas fetch for {@code stallAfterMs}, then stall for good (no stall cycle). */
        public Builder stallAfterMs(long stallAfterMs) {
            this.stallAfterMs = stallAfterMs;
            return this;
        }

        public Builder replicaLagTimeMaxMs(long replicaLagTimeMaxMs) {
            this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
            return this;
        }

        public Builder minInsyncReplicas(int minInsyncReplicas) {
            this.minInsyncReplicas = minInsyncReplicas;
            return this;
        }

        public Builder maxFrameBytes(int maxFrameBytes) {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        public Builder maxInFlightPerConnection(int maxInFlightPerConnection) {
            this.maxInFlightPerConnection = maxInFlightPerConnection;
            return this;
        }

        public Builder retentionBytes(long retentionBytes) {
            this.retentionBytes = retentionBytes;
            return this;
        }

        public Builder maxParkedRequests(int maxParkedRequests) {
            this.maxParkedRequests = maxParkedRequests;
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        public Builder idleTimeoutMs(long idleTimeoutMs) {
            this.idleTimeoutMs = idleTimeoutMs;
            return this;
        }

        public BrokerConfig build() {
            Map<String, Integer> topicsOrDefault = topics.isEmpty() ? Map.of(DEFAULT_TOPIC, DEFAULT_PARTITIONS) : topics;
            return new BrokerConfig(port, topicsOrDefault, followers, replicaLagMs, replicaLagJitterMs, stalledReplicas,
                    stallMs, healthyMs, stallAfterMs, replicaLagTimeMaxMs, minInsyncReplicas, maxFrameBytes, maxInFlightPerConnection,
                    retentionBytes, maxParkedRequests, maxConnections, idleTimeoutMs);
        }
    }
}
