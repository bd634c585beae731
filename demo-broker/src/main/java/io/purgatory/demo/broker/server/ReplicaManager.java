package io.purgatory.demo.broker.server;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.cluster.PartitionState;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionFetch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The broker's partitions and the produce path: appends on the leader, answers {@code acks=0/1}
 * at once and parks {@code acks=-1} produces as {@link DelayedProduce}s in the {@code produce}
 * purgatory, each watching its partitions at the end offsets it needs. A follower fetch that moves
 * a partition's high watermark calls {@code advance(partition, highWatermark)}, which tries only the
 * produces that the new high watermark can complete; an ISR change (rare) calls
 * {@code checkAndComplete(partition)}, which tries them all, as a leader change would (a shrink
 * raises the high watermark, and settles produces with {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND}
 * when it leaves the ISR below the minimum). Both come from the follower thread with no partition
 * lock held.
 *
 * <p>The fetch path: {@link #fetchMessages} answers a fetch at once when it can, and otherwise
 * parks it as a {@link DelayedFetch} in the {@code fetch} purgatory. Every high watermark move
 * (from a follower fetch, an ISR change, or an append while the ISR is the leader alone) tells
 * that purgatory too.
 *
 * <p>Thread-safe: the topic maps are built in the constructor and never change; partition state is
 * guarded by each {@link Partition}; the purgatories and {@link SimulatedFollowers} are thread-safe;
 * {@code stopped} is volatile, set once by {@link #close()}.
 */
public final class ReplicaManager implements AutoCloseable {
    private final Map<String, Topic> topicsByName = new LinkedHashMap<>();
    private final Map<Uuid, Topic> topicsById = new LinkedHashMap<>();
    private final DelayedOperationPurgatory<DelayedProduce> producePurgatory;
    private final DelayedOperationPurgatory<DelayedFetch> fetchPurgatory;
    private final SimulatedFollowers followers;
    private final int maxParkedRequests;
    private volatile boolean stopped;

    /** A topic: its name, its id (produce v13+ and metadata use it) and its partitions by index. */
    public record Topic(String name, Uuid id, List<Partition> partitions) {
        public Partition partition(int index) {
            return index >= 0 && index < partitions.size() ? partitions.get(index) : null;
        }
    }

    /** One partition of a produce request: which entry, where, its validated record batches, or why it is refused already. */
    public record PartitionAppend(ProduceResult.Key key, Partition partition, MemoryRecords records, Errors refused) {
        public static PartitionAppend of(ProduceResult.Key key, Partition partition, MemoryRecords records) {
            return new PartitionAppend(key, partition, records, null);
        }

        static PartitionAppend refused(ProduceResult.Key key, Errors error) {
            return new PartitionAppend(key, null, MemoryRecords.EMPTY, error);
        }
    }

    public ReplicaManager(BrokerConfig config) {
        long nowMs = SimulatedFollowers.nowMs();
        List<Partition> all = new ArrayList<>();
        config.topics().forEach((name, count) -> {
            List<Partition> partitions = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                partitions.add(new Partition(new TopicPartition(name, i), config.followers(), config.minInsyncReplicas(),
                        config.replicaLagTimeMaxMs(), nowMs, config.retentionBytes()));
            }
            Topic topic = new Topic(name, Uuid.randomUuid(), List.copyOf(partitions));
            topicsByName.put(name, topic);
            topicsById.put(topic.id(), topic);
            all.addAll(partitions);
        });
        this.producePurgatory = new DelayedOperationPurgatory<>("produce");
        this.fetchPurgatory = new DelayedOperationPurgatory<>("fetch");
        this.maxParkedRequests = config.maxParkedRequests();
        this.followers = new SimulatedFollowers(config, all, new SimulatedFollowers.Listener() {
            @Override
            public void highWatermarkMoved(Partition partition, long highWatermark) {
                producePurgatory.advance(partition.topicPartition(), highWatermark);
                fetchesSeeHighWatermark(partition, highWatermark);
            }

            @Override
            public void isrChanged(Partition partition) {
                producePurgatory.checkAndComplete(partition.topicPartition());
                fetchPurgatory.checkAndComplete(partition.topicPartition());
                fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
            }
        });
    }

    public Topic topic(String name) {
        return topicsByName.get(name);
    }

    public Topic topic(Uuid id) {
        return topicsById.get(id);
    }

    public Collection<Topic> topics() {
        return topicsByName.values();
    }

    /**
     * A partition by topic name and index.
     *
     * @throws IllegalArgumentException if the broker has no such partition
     */
    public Partition partition(String topic, int partition) {
        Topic t = topic(topic);
        Partition p = t == null ? null : t.partition(partition);
        if (p == null) {
            throw new IllegalArgumentException("no partition " + topic + "-" + partition);
        }
        return p;
    }

    /** Every partition's offsets and ISR, topics in configuration order; each partition read atomically. */
    public List<PartitionState> partitionStates() {
        List<PartitionState> states = new ArrayList<>();
        for (Topic topic : topics()) {
            topic.partitions().forEach(partition -> states.add(partition.snapshot()));
        }
        return states;
    }

    /** The metrics of every purgatory the replica manager has. */
    public List<PurgatoryMetrics> purgatoryMetrics() {
        return List.of(producePurgatoryMetrics(), fetchPurgatoryMetrics());
    }

    public SimulatedFollowers followers() {
        return followers;
    }

    public PurgatoryMetrics producePurgatoryMetrics() {
        return producePurgatory.metrics();
    }

    public PurgatoryMetrics fetchPurgatoryMetrics() {
        return fetchPurgatory.metrics();
    }

    /**
     * Reads the partitions and calls {@code responder} once with one read per partition, in order:
     * at once when {@code maxWaitMs <= 0}, when there are no partitions, when some partition cannot
     * be read or when {@code minBytes} of committed data are there already; otherwise when a high
     * watermark move brings enough, or at {@code maxWaitMs} with what is there then (the one case
     * it is told the fetch expired). See {@link DelayedFetch} for the two forms a parked fetch
     * watches in.
     */
    void fetchMessages(long maxWaitMs, int minBytes, int maxBytes, List<PartitionFetch> partitions,
                       DelayedFetch.Completion responder) {
        if (maxWaitMs <= 0 || partitions.isEmpty()) {
            responder.complete(DelayedFetch.read(partitions, maxBytes), false);
            return;
        }
        DelayedFetch fetch = new DelayedFetch(maxWaitMs, minBytes, maxBytes, partitions, responder);
        long position = partitions.size() == 1 ? completingHighWatermark(partitions.get(0), minBytes) : -1;
        if (position >= 0) {
            fetchPurgatory.tryCompleteElseWatchPosition(fetch, partitions.get(0).partition().topicPartition(), position);
            return;
        }
        Set<Object> keys = new LinkedHashSet<>();
        for (PartitionFetch partition : partitions) {
            if (partition.partition() != null) {
                keys.add(DelayedFetch.anyProgress(partition.partition().topicPartition()));
            }
        }
        fetchPurgatory.tryCompleteElseWatch(fetch, keys);
    }

    /** The high watermark at which a one-partition fetch has its {@code minBytes}, or -1 when not known yet. */
    private static long completingHighWatermark(PartitionFetch fetch, int minBytes) {
        if (fetch.partition() == null) {
            return -1;
        }
        return fetch.partition().read((log, highWatermark) -> log.inRange(fetch.fetchOffset())
                ? log.highWatermarkForBytes(fetch.fetchOffset(), minBytes, fetch.maxBytes())
                : -1);
    }

    /** Tells parked fetches that the partition's high watermark moved: both forms. No partition lock may be held. */
    private void fetchesSeeHighWatermark(Partition partition, long highWatermark) {
        fetchPurgatory.advance(partition.topicPartition(), highWatermark);
        fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
    }

    /** acks=-1 produces waiting in the purgatory now. */
    public long parkedProduces() {
        return producePurgatory.numDelayed();
    }

    /**
     * Appends each partition's records on the leader and calls {@code responder} once with one
     * result per partition, each with its append's {@link ProduceResult#key() key}: at once for {@code acks} 0 and 1, and for {@code acks=-1}
     * when every ISR replica has the records or {@code timeoutMs} passes, whichever is first.
     * An {@code acks=-1} produce to a partition whose ISR is below the minimum is refused with
     * {@link Errors#NOT_ENOUGH_REPLICAS} and appends nothing there. The records are copied into the
     * partition's log before this returns. While {@link BrokerConfig#maxParkedRequests()} produces
     * are parked, an {@code acks=-1} produce is refused with {@link Errors#THROTTLING_QUOTA_EXCEEDED}
     * and appends nothing (the check and the parking are not atomic: concurrent connections may
     * overshoot the cap by a few).
     *
     * @return the produce it parked (it may have completed already), or {@code null} when none
     *     was needed and {@code responder} has been called
     */
    public DelayedProduce appendRecords(short acks, long timeoutMs, List<PartitionAppend> appends, Consumer<List<ProduceResult>> responder) {
        List<ProduceResult> results = new ArrayList<>(appends.size());
        Map<TopicPartition, Long> requiredEndOffsets = new LinkedHashMap<>();
        Errors refusal = stopped ? Errors.NOT_LEADER_OR_FOLLOWER
                : acks == -1 && producePurgatory.numDelayed() >= maxParkedRequests ? Errors.THROTTLING_QUOTA_EXCEEDED
                : null;
        for (PartitionAppend append : appends) {
            ProduceResult result = refusal != null && append.refused() == null
                    ? ProduceResult.failed(append.key(), refusal)
                    : append(acks, append);
            if (result.waitsFor() != null) {
                requiredEndOffsets.merge(result.waitsFor().topicPartition(), result.endOffset(), Math::max);
            }
            results.add(result);
        }
        if (requiredEndOffsets.isEmpty()) {
            responder.accept(results);
            return null;
        }
        DelayedProduce produce = new DelayedProduce(Math.max(0, timeoutMs), results, responder);
        producePurgatory.tryCompleteElseWatchPositions(produce, requiredEndOffsets);
        if (stopped) { // parked while close() was taking the parked produces out
            produce.cancel(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return produce;
    }

    private ProduceResult append(short acks, PartitionAppend append) {
        if (append.refused() != null) {
            return ProduceResult.failed(append.key(), append.refused());
        }
        if (acks != -1 && acks != 0 && acks != 1) {
            return ProduceResult.failed(append.key(), Errors.INVALID_REQUIRED_ACKS);
        }
        Partition partition = append.partition();
        if (acks == -1 && partition.isrBelowMinimum()) {
            return ProduceResult.failed(append.key(), Errors.NOT_ENOUGH_REPLICAS);
        }
        Partition.AppendResult appended = partition.append(append.records());
        followers.onAppend(partition);
        if (appended.highWatermarkMoved()) {
            fetchesSeeHighWatermark(partition, appended.highWatermark());
        }
        return acks == -1
                ? ProduceResult.awaitingReplication(append.key(), partition, appended.baseOffset(), appended.endOffset())
                : ProduceResult.appended(append.key(), appended.baseOffset());
    }

    /**
     * Stops leading: stops the followers and answers every parked produce, the partitions still
     * waiting with {@link Errors#NOT_LEADER_OR_FOLLOWER} (retriable: a Kafka client refreshes its
     * metadata and sends again, as when a leader moves), then closes the purgatories (a parked fetch
     * is answered with what is there). From now on a produce is answered
     * {@code NOT_LEADER_OR_FOLLOWER} and appends nothing.
     */
    @Override
    public void close() {
        stopped = true;
        followers.close();
        for (Topic topic : topicsByName.values()) {
            for (Partition partition : topic.partitions()) {
                producePurgatory.cancelForKey(partition.topicPartition(), Errors.NOT_LEADER_OR_FOLLOWER);
            }
        }
        producePurgatory.close();
        fetchPurgatory.close();
    }
}
