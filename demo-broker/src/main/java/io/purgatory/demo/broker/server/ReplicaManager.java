package io.purgatory.demo.broker.server;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryMetrics;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.log.PartitionLog;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.Purgatories;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import io.purgatory.demo.broker.server.DelayedFetch.PartitionFetch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The broker's request paths that park on partitions, as Kafka's {@code ReplicaManager}: produce,
 * fetch and delete-records, with their three purgatories.
 *
 * <p>The produce path: appends on the leader, answers {@code acks=0/1} at once and parks
 * {@code acks=-1} produces as {@link DelayedProduce}s in the {@code produce} purgatory, each
 * watching its partitions at the end offsets it needs. A follower fetch that moves a partition's
 * high watermark calls {@code advance(partition, highWatermark)}, which tries only the produces
 * that the new high watermark can complete; an ISR change (rare) calls
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
 * <p>The delete-records path: {@link #deleteRecords} moves each partition's log start offset on the
 * leader at once and parks a {@link DelayedDeleteRecords} in the {@code delete-records} purgatory,
 * watching each partition at the requested offset; a follower fetch that moves a partition's low
 * watermark calls {@code advance(partition, lowWatermark)}.
 *
 * <p>Topics live in its {@link TopicRegistry}, which tells it when a partition changes under
 * parked requests. Deleting a topic marks its partitions deleted and then re-checks, in each
 * purgatory, what is parked on them ({@code checkAndComplete}): a parked produce answers
 * {@code UNKNOWN_TOPIC_OR_PARTITION} for those partitions (and keeps waiting for any other
 * topic's, as Kafka's {@code DelayedProduce} does), a parked fetch answers at once, a parked
 * delete-records answers {@code UNKNOWN_TOPIC_OR_PARTITION}. An operation that parks while the
 * deletion runs sees the mark in its own {@code tryComplete} (the purgatory tries it again after
 * watching), so none waits for its timeout. Changing {@code min.insync.replicas} re-checks the
 * produces parked on the topic's partitions the same way.
 *
 * <p>Memory: the logs hold their batches in the broker's {@link MemoryBudget}, kept within their
 * share by {@link LogBudget}'s broker-wide retention (an append that still does not fit is answered
 * {@code KAFKA_STORAGE_ERROR}). A parked produce or fetch holds {@link #parkedBytes(int)} for the
 * partitions it watches from parking to completion; an {@code acks=-1} produce the parked share has
 * no room for is refused before it appends, with {@code THROTTLING_QUOTA_EXCEEDED} (as past
 * {@code --max-parked-requests}), and a fetch it has no room for is answered at once with what is
 * there (Kafka has no error for a fetch that cannot wait; its client fetches again).
 *
 * <p>Its purgatories are registered in its {@link Purgatories}, which lists their metrics and
 * closes them: a new kind of delayed operation is one field here, beside the method that parks it.
 *
 * <p>Thread-safe. Partition state is guarded by each {@link Partition}; the topic registry, the
 * purgatories and {@link SimulatedFollowers} are thread-safe; {@code stopped} is volatile, set
 * once by {@link #close()}. No purgatory is called with a partition's lock held.
 */
public final class ReplicaManager implements AutoCloseable {
    private final BrokerConfig config;
    private final Purgatories purgatories = new Purgatories();
    private final DelayedOperationPurgatory<DelayedProduce> producePurgatory = purgatories.create("produce");
    private final DelayedOperationPurgatory<DelayedFetch> fetchPurgatory = purgatories.create("fetch");
    private final DelayedOperationPurgatory<DelayedDeleteRecords> deleteRecordsPurgatory = purgatories.create("delete-records");
    private final SimulatedFollowers followers;
    private final TopicRegistry topics;
    private final int maxParkedRequests;
    private final MemoryBudget budget;
    private final LogBudget logBudget;
    private volatile boolean stopped;

    /** What a parked produce or fetch counts in the budget beyond its partitions: the operation, its timer entry, its response slot. */
    static final int PARKED_OVERHEAD_BYTES = 512;
    /** What a parked operation counts per partition it watches: its result or read state, the key and the watch list entry. */
    static final int PARKED_BYTES_PER_PARTITION = 256;

    /** One partition of a produce request: which entry, where, its validated record batches, or why it is refused already. */
    public record PartitionAppend(ProduceResult.Key key, Partition partition, MemoryRecords records, Errors refused) {
        public static PartitionAppend of(ProduceResult.Key key, Partition partition, MemoryRecords records) {
            return new PartitionAppend(key, partition, records, null);
        }

        static PartitionAppend refused(ProduceResult.Key key, Errors error) {
            return new PartitionAppend(key, null, MemoryRecords.EMPTY, error);
        }
    }

    /** A replica manager bounded by no memory budget (tests, tools). */
    public ReplicaManager(BrokerConfig config) {
        this(config, MemoryBudget.unbounded());
    }

    /** A replica manager whose logs and parked operations hold their memory in {@code budget}. */
    public ReplicaManager(BrokerConfig config, MemoryBudget budget) {
        this.config = config;
        this.maxParkedRequests = config.maxParkedRequests();
        this.budget = budget;
        this.logBudget = new LogBudget(budget);
        this.followers = new SimulatedFollowers(config, List.of(), new SimulatedFollowers.Listener() {
            @Override
            public void highWatermarkMoved(Partition partition, long highWatermark) {
                producePurgatory.advance(partition.topicPartition(), highWatermark);
                fetchesSeeHighWatermark(partition, highWatermark);
            }

            @Override
            public void isrChanged(Partition partition) {
                TopicRegistry registry = topics; // null only while the constructor still runs, before any ISR can change
                if (registry != null) {
                    registry.isrChanged();
                }
                recheckAllParked(partition);
            }

            @Override
            public void lowWatermarkMoved(Partition partition, long lowWatermark) {
                deleteRecordsPurgatory.advance(partition.topicPartition(), lowWatermark);
            }
        });
        this.topics = new TopicRegistry(config, followers, new TopicRegistry.ParkedRequests() {
            @Override
            public void partitionChanged(Partition partition) {
                recheckParked(partition);
            }

            @Override
            public void partitionDeleted(Partition partition) {
                recheckAllParked(partition);
            }
        }, logBudget);
    }

    /** What a parked operation watching {@code partitions} partitions counts in the memory budget. */
    static long parkedBytes(int partitions) {
        return PARKED_OVERHEAD_BYTES + (long) PARKED_BYTES_PER_PARTITION * partitions;
    }

    /** The topics, their partitions and configs. */
    public TopicRegistry topics() {
        return topics;
    }

    /** The memory budget its logs and parked operations hold their memory in (the broker's, shared with the coordinator and listener). */
    public MemoryBudget memoryBudget() {
        return budget;
    }

    /** The broker's settings as it started. */
    public BrokerConfig config() {
        return config;
    }

    /**
     * A partition by topic name and index.
     *
     * @throws IllegalArgumentException if the broker has no such partition
     */
    public Partition partition(String topic, int partition) {
        TopicRegistry.Topic t = topics.topic(topic);
        Partition p = t == null ? null : t.partition(partition);
        if (p == null) {
            throw new IllegalArgumentException("no partition " + topic + "-" + partition);
        }
        return p;
    }

    /** Re-checks the produces and fetches parked on a partition whose state changed other than by an advance. */
    private void recheckParked(Partition partition) {
        producePurgatory.checkAndComplete(partition.topicPartition());
        fetchPurgatory.checkAndComplete(partition.topicPartition());
        fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
    }

    /** As {@link #recheckParked}, and the delete-records parked there too: its ISR changed, or it was deleted. */
    private void recheckAllParked(Partition partition) {
        recheckParked(partition);
        deleteRecordsPurgatory.checkAndComplete(partition.topicPartition());
    }

    /** The metrics of every purgatory the replica manager has. */
    public List<PurgatoryMetrics> purgatoryMetrics() {
        return purgatories.metrics();
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

    public PurgatoryMetrics deleteRecordsPurgatoryMetrics() {
        return deleteRecordsPurgatory.metrics();
    }

    /**
     * Reads the partitions and calls {@code responder} once with one read per partition, in order:
     * at once when {@code maxWaitMs <= 0}, when there are no partitions, when some partition cannot
     * be read or when {@code minBytes} of committed data are there already; otherwise when a high
     * watermark move brings enough, or at {@code maxWaitMs} with what is there then (the one case
     * it is told the fetch expired). See {@link DelayedFetch} for the two forms a parked fetch
     * watches in.
     *
     * @return the fetch, when it was parked (it may have completed since), so that its connection
     *     can {@link DelayedFetch#abandon abandon} it when it closes; null when answered at once
     */
    DelayedFetch fetchMessages(long maxWaitMs, int minBytes, int maxBytes, List<PartitionFetch> partitions,
                               DelayedFetch.Completion responder) {
        long held = parkedBytes(partitions.size());
        if (maxWaitMs <= 0 || partitions.isEmpty() || !budget.tryCharge(MemoryBudget.Kind.PARKED, held)) {
            if (maxWaitMs > 0 && !partitions.isEmpty()) {
                budget.refused(MemoryBudget.Kind.PARKED, "a fetch of " + partitions.size() + " partition(s) waiting: answered at once");
            }
            responder.complete(DelayedFetch.read(partitions, maxBytes), false);
            return null;
        }
        DelayedFetch fetch = new DelayedFetch(maxWaitMs, minBytes, maxBytes, partitions, responder,
                () -> budget.release(MemoryBudget.Kind.PARKED, held));
        long position = partitions.size() == 1 ? completingHighWatermark(partitions.get(0), minBytes) : -1;
        if (position >= 0) {
            return fetchPurgatory.tryCompleteElseWatchPosition(fetch, partitions.get(0).partition().topicPartition(), position)
                    ? null : fetch;
        }
        Set<Object> keys = new LinkedHashSet<>();
        for (PartitionFetch partition : partitions) {
            if (partition.partition() != null) {
                keys.add(DelayedFetch.anyProgress(partition.partition().topicPartition()));
            }
        }
        return fetchPurgatory.tryCompleteElseWatch(fetch, keys) ? null : fetch;
    }

    /** The high watermark at which a one-partition fetch has its {@code minBytes}, or -1 when not known yet. */
    private static long completingHighWatermark(PartitionFetch fetch, int minBytes) {
        if (fetch.partition() == null) {
            return -1;
        }
        return fetch.partition().read((log, highWatermark) -> log.inRange(fetch.fetchOffset())
                ? log.highWatermarkForBytes(fetch.fetchOffset(), minBytes, fetch.maxBytes())
                : -1, -1L);
    }

    /** Tells parked fetches that the partition's high watermark moved: both forms. No partition lock may be held. */
    private void fetchesSeeHighWatermark(Partition partition, long highWatermark) {
        fetchPurgatory.advance(partition.topicPartition(), highWatermark);
        fetchPurgatory.checkAndComplete(DelayedFetch.anyProgress(partition.topicPartition()));
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
     * overshoot the cap by a few); so is one the memory budget's parked share has no room for.
     *
     * @return the produce it parked (it may have completed already), or {@code null} when none
     *     was needed and {@code responder} has been called
     */
    public DelayedProduce appendRecords(short acks, long timeoutMs, List<PartitionAppend> appends, Consumer<List<ProduceResult>> responder) {
        List<ProduceResult> results = new ArrayList<>(appends.size());
        Map<TopicPartition, Long> requiredEndOffsets = new LinkedHashMap<>();
        long held = acks == -1 ? parkedBytes(appends.size()) : 0;
        Errors refusal = stopped ? Errors.NOT_LEADER_OR_FOLLOWER
                : acks == -1 && producePurgatory.numDelayed() >= maxParkedRequests ? Errors.THROTTLING_QUOTA_EXCEEDED
                : null;
        if (refusal == null && held > 0 && !budget.tryCharge(MemoryBudget.Kind.PARKED, held)) {
            refusal = Errors.THROTTLING_QUOTA_EXCEEDED;
            budget.refused(MemoryBudget.Kind.PARKED, "an acks=-1 produce of " + appends.size() + " partition(s): THROTTLING_QUOTA_EXCEEDED");
        }
        long charged = refusal == null ? held : 0;
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
            budget.release(MemoryBudget.Kind.PARKED, charged);
            responder.accept(results);
            return null;
        }
        DelayedProduce produce = new DelayedProduce(Math.max(0, timeoutMs), results, settled -> {
            budget.release(MemoryBudget.Kind.PARKED, charged);
            responder.accept(settled);
        });
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
        logBudget.makeRoom(PartitionLog.heldBytes(append.records()), topics.all());
        Partition.AppendResult appended = partition.append(append.records());
        if (appended.error() == Errors.KAFKA_STORAGE_ERROR) {
            budget.refused(MemoryBudget.Kind.LOGS, "an append of " + append.records().sizeInBytes() + " bytes to " + partition
                    + ": KAFKA_STORAGE_ERROR");
        }
        if (appended.error() != Errors.NONE) {
            return ProduceResult.failed(append.key(), appended.error());
        }
        followers.onAppend(partition);
        if (appended.highWatermarkMoved()) {
            fetchesSeeHighWatermark(partition, appended.highWatermark());
        }
        return acks == -1
                ? ProduceResult.awaitingReplication(append.key(), partition, appended.baseOffset(), appended.endOffset())
                : ProduceResult.appended(append.key(), appended.baseOffset());
    }

    /**
     * Deletes records, as Kafka's {@code deleteRecords}: moves each partition's log start offset on
     * the leader at once ({@link Partition#deleteRecordsBefore}), tells the followers, answers the
     * fetches parked below the new log start ({@code OFFSET_OUT_OF_RANGE}), then calls
     * {@code responder} once with one result per partition: at once when no partition waits,
     * otherwise when every in-sync replica's log start offset has reached the requested offset
     * (the low watermark) on each partition, or at {@code timeoutMs} ({@code REQUEST_TIMED_OUT} for
     * those still waiting), whichever is first.
     *
     * @param offsets the partitions and the offsets to delete before ({@link Partition#HIGH_WATERMARK}
     *     for the high watermark); a null partition is answered {@code UNKNOWN_TOPIC_OR_PARTITION}
     * @return the operation it parked (it may have completed already), or null when none was
     *     needed and {@code responder} has been called
     */
    public DelayedDeleteRecords deleteRecords(long timeoutMs, List<DelayedDeleteRecords.Request> offsets,
                                              Consumer<List<DelayedDeleteRecords.Result>> responder) {
        List<DelayedDeleteRecords.Result> results = new ArrayList<>(offsets.size());
        Map<TopicPartition, Long> required = new LinkedHashMap<>();
        for (DelayedDeleteRecords.Request request : offsets) {
            Partition partition = request.partition();
            if (partition == null || stopped) {
                results.add(DelayedDeleteRecords.Result.failed(request, stopped ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION));
                continue;
            }
            Partition.DeleteRecordsResult deleted = partition.deleteRecordsBefore(request.offset());
            if (deleted.error() != Errors.NONE) {
                results.add(DelayedDeleteRecords.Result.failed(request, deleted.error()));
                continue;
            }
            if (deleted.logStartMoved()) {
                followers.onLogStartMoved(partition);
                recheckParked(partition);
            }
            results.add(DelayedDeleteRecords.Result.waiting(request, partition, deleted.requestedOffset(), deleted.lowWatermark()));
            required.merge(partition.topicPartition(), deleted.requestedOffset(), Math::max);
        }
        if (required.isEmpty()) {
            responder.accept(results);
            return null;
        }
        DelayedDeleteRecords operation = new DelayedDeleteRecords(Math.max(0, timeoutMs), results, responder);
        deleteRecordsPurgatory.tryCompleteElseWatchPositions(operation, required);
        if (stopped) { // parked while close() was taking the parked operations out
            operation.cancel(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return operation;
    }

    /** Delete-records requests waiting in the purgatory now. */
    public long parkedDeleteRecords() {
        return deleteRecordsPurgatory.numDelayed();
    }

    /**
     * Stops leading: stops the followers and cancels every parked produce and delete-records with
     * the reason {@link Errors#NOT_LEADER_OR_FOLLOWER} ({@code cancelForKey(partition, reason)}),
     * which answers the partitions still waiting with it (retriable: a Kafka
     * client refreshes its metadata and sends again, as when a leader moves), then closes the
     * purgatories (a parked fetch is answered with what is there). From now on a produce is
     * answered {@code NOT_LEADER_OR_FOLLOWER} and appends nothing.
     */
    @Override
    public void close() {
        stopped = true;
        followers.close();
        for (TopicRegistry.Topic topic : topics.all()) {
            for (Partition partition : topic.partitions()) {
                producePurgatory.cancelForKey(partition.topicPartition(), Errors.NOT_LEADER_OR_FOLLOWER);
                deleteRecordsPurgatory.cancelForKey(partition.topicPartition(), Errors.NOT_LEADER_OR_FOLLOWER);
            }
        }
        purgatories.close();
    }
}
