package io.purgatory.kafka.cluster;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How to start a {@link KafkaCluster}: how many combined broker-and-controller nodes, on what runtime, where
 * their files go, each broker JVM's maximum heap, the broker settings that differ from
 * {@link #BROKER_DEFAULTS}, and the settings of single nodes over those.
 *
 * <p>Immutable, so thread-safe.
 *
 * @param nodes how many KRaft nodes, each a broker and a voter of the controller quorum
 * @param runtime the jars each broker JVM runs
 * @param directory where each node's config, data and log go (created; one sub-directory per node); made absolute
 * @param maxHeapMb each broker JVM's {@code -Xmx}
 * @param brokerProperties settings over {@link #BROKER_DEFAULTS}, for every node
 * @param nodeProperties settings of single nodes, by node id, over every other setting
 */
public record ClusterSpec(int nodes, KafkaRuntime runtime, Path directory, int maxHeapMb, Map<String, String> brokerProperties,
        Map<Integer, Map<String, String>> nodeProperties) {

    /**
     * The broker settings every node gets, sized for a 2-core machine running three brokers and their
     * clients: two network and two I/O threads, one replica fetcher, one thread per coordinator, small
     * internal topics at replication factor 3, a small cleaner buffer (Kafka's default is 128 MiB of heap),
     * no topic created by a client's metadata request, and no initial rebalance delay (tests start consumers
     * together). A follower that has not caught up for 4 s leaves the ISR (Kafka's default is 30 s), so that a
     * stopped follower is dropped within a test's time.
     */
    public static final Map<String, String> BROKER_DEFAULTS = defaults();

    public ClusterSpec {
        if (nodes < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node, not " + nodes);
        }
        Objects.requireNonNull(runtime, "runtime");
        // absolute: each node's JVM runs in its own directory, and the paths in its config must not depend on that
        directory = directory.toAbsolutePath();
        if (maxHeapMb < 128) {
            throw new IllegalArgumentException("a broker needs at least 128 MB of heap, not " + maxHeapMb);
        }
        brokerProperties = Map.copyOf(brokerProperties);
        for (int id : nodeProperties.keySet()) {
            if (id < 0 || id >= nodes) {
                throw new IllegalArgumentException("no node " + id + " in a cluster of " + nodes);
            }
        }
        Map<Integer, Map<String, String>> copy = new LinkedHashMap<>();
        nodeProperties.forEach((id, properties) -> copy.put(id, Map.copyOf(properties)));
        nodeProperties = Map.copyOf(copy);
    }

    /** Three nodes with 512 MB of heap each and {@link #BROKER_DEFAULTS}. */
    public static ClusterSpec threeNodes(KafkaRuntime runtime, Path directory) {
        return new ClusterSpec(3, runtime, directory, 512, Map.of(), Map.of());
    }

    /** This spec with a different node count; settings of nodes beyond it are dropped. */
    public ClusterSpec withNodes(int count) {
        Map<Integer, Map<String, String>> kept = new LinkedHashMap<>(nodeProperties);
        kept.keySet().removeIf(id -> id >= count);
        return new ClusterSpec(count, runtime, directory, maxHeapMb, brokerProperties, kept);
    }

    /** This spec with a different heap per broker. */
    public ClusterSpec withMaxHeapMb(int megabytes) {
        return new ClusterSpec(nodes, runtime, directory, megabytes, brokerProperties, nodeProperties);
    }

    /** This spec with one more broker setting (over the defaults and any set before), for every node. */
    public ClusterSpec withBrokerProperty(String name, String value) {
        Map<String, String> properties = new LinkedHashMap<>(brokerProperties);
        properties.put(name, value);
        return new ClusterSpec(nodes, runtime, directory, maxHeapMb, properties, nodeProperties);
    }

    /** This spec with one more setting of node {@code id} alone, over every other setting. */
    public ClusterSpec withNodeProperty(int id, String name, String value) {
        Map<Integer, Map<String, String>> all = new LinkedHashMap<>(nodeProperties);
        Map<String, String> properties = new LinkedHashMap<>(all.getOrDefault(id, Map.of()));
        properties.put(name, value);
        all.put(id, properties);
        return new ClusterSpec(nodes, runtime, directory, maxHeapMb, brokerProperties, all);
    }

    /** What node {@code id} runs with beyond the common settings. */
    Map<String, String> nodeProperties(int id) {
        return nodeProperties.getOrDefault(id, Map.of());
    }

    /**
     * Whether node {@code id} is stopped by {@link KafkaCluster#shutdown} when fewer than a quorum of the
     * controller voters are left running: nodes stop one at a time in id order, and a broker's controlled shutdown
     * needs an active controller to approve it, so these nodes run with {@code controlled.shutdown.enable=false}
     * (there is no other broker left to move their leaders to anyway). With three nodes, that is the last one.
     */
    boolean stopsWithoutQuorum(int id) {
        int quorum = nodes / 2 + 1;
        return nodes - id < quorum;
    }

    /** The internal topics' replication factor: 3, or fewer on a smaller cluster. */
    int internalReplicationFactor() {
        return Math.min(3, nodes);
    }

    private static Map<String, String> defaults() {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("num.network.threads", "2");
        properties.put("num.io.threads", "2");
        properties.put("background.threads", "2");
        properties.put("num.replica.fetchers", "1");
        properties.put("num.recovery.threads.per.data.dir", "1");
        properties.put("log.cleaner.threads", "1");
        properties.put("log.cleaner.dedupe.buffer.size", "8388608");
        properties.put("group.coordinator.threads", "1");
        properties.put("share.coordinator.threads", "1");
        properties.put("offsets.topic.num.partitions", "3");
        properties.put("transaction.state.log.num.partitions", "3");
        properties.put("share.coordinator.state.topic.num.partitions", "3");
        properties.put("auto.create.topics.enable", "false");
        properties.put("group.initial.rebalance.delay.ms", "0");
        properties.put("replica.lag.time.max.ms", "4000");
        return Map.copyOf(properties);
    }
}
