package io.purgatory.demo.broker.server;

import io.purgatory.DelayedOperation;
import io.purgatory.demo.broker.cluster.Partition;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;

/**
 * A {@code DeleteRecords} waiting, as Kafka's {@code DelayedDeleteRecords}, until every in-sync
 * replica of each of its partitions has moved its log start offset to the requested offset: until
 * the partition's low watermark reaches it. The leader moved its own log start at once; the
 * followers move theirs on their next fetches. It watches each waiting partition's
 * {@link org.apache.kafka.common.TopicPartition} at the requested offset, in the position form:
 * {@code advance(partition, lowWatermark)} tries it only once the low watermark gets there, and
 * {@code checkAndComplete(partition)} (an ISR change, a deleted topic) tries it whatever the
 * position.
 *
 * <p>As in Kafka, a waiting partition's result is preset to {@link Errors#REQUEST_TIMED_OUT} and
 * replaced once its low watermark reaches the offset ({@link Errors#NONE}), or its topic is deleted
 * ({@link Errors#UNKNOWN_TOPIC_OR_PARTITION}); when the timeout passes first, the preset results are
 * what the client gets. Cancelled with an {@link Errors} as its reason (the broker shutting down
 * cancels what is parked on its partitions with {@link Errors#NOT_LEADER_OR_FOLLOWER}), it answers
 * the partitions still waiting with that error instead.
 *
 * <p>Thread-safe through the purgatory's contract: the results are read and written only in
 * {@link #tryComplete} and {@link #onComplete}, which run under this operation's lock. The
 * responder runs exactly once, on whichever thread completed the operation.
 */
public final class DelayedDeleteRecords extends DelayedOperation {
    private final Result[] results;
    private final Consumer<List<Result>> responder;

    /**
     * One partition of a {@code DeleteRecords} request: as the request names it, the partition
     * found (null when none), and the offset to delete before. Immutable.
     */
    public record Request(String topic, int partitionIndex, Partition partition, long offset) {
    }

    /**
     * The outcome of one partition. Immutable.
     *
     * @param request the partition it answers
     * @param error the partition's error
     * @param lowWatermark the partition's low watermark when answered, -1 with an error other than a timeout
     * @param waitsFor the partition whose low watermark must reach {@code requiredOffset}, or null when settled
     * @param requiredOffset the offset the log start moved to
     */
    public record Result(Request request, Errors error, long lowWatermark, Partition waitsFor, long requiredOffset) {
        static Result failed(Request request, Errors error) {
            return new Result(request, error, -1, null, -1);
        }

        /** Waiting for the low watermark; it times out unless settled first. */
        static Result waiting(Request request, Partition partition, long requiredOffset, long lowWatermark) {
            return new Result(request, Errors.REQUEST_TIMED_OUT, lowWatermark, partition, requiredOffset);
        }

        Result settled(Errors status, long lowWatermark) {
            return new Result(request, status, status == Errors.NONE || status == Errors.REQUEST_TIMED_OUT ? lowWatermark : -1,
                    null, requiredOffset);
        }
    }

    DelayedDeleteRecords(long timeoutMs, List<Result> results, Consumer<List<Result>> responder) {
        super(timeoutMs);
        this.results = results.toArray(new Result[0]);
        this.responder = responder;
    }

    @Override
    public boolean tryComplete() {
        boolean allDone = true;
        for (int i = 0; i < results.length; i++) {
            Result result = results[i];
            if (result.waitsFor() != null) {
                Errors status = result.waitsFor().deleteRecordsStatus(result.requiredOffset());
                if (status == null) {
                    allDone = false;
                } else {
                    results[i] = result.settled(status, result.waitsFor().lowWatermark());
                }
            }
        }
        return allDone && forceComplete();
    }

    @Override
    public void onComplete() {
        Errors gone = cancelReason() instanceof Errors reason ? reason : null;
        for (int i = 0; i < results.length; i++) {
            Result result = results[i];
            if (result.waitsFor() != null) {
                results[i] = gone != null ? result.settled(gone, -1) : result.settled(result.error(), result.waitsFor().lowWatermark());
            }
        }
        responder.accept(List.of(results));
    }

    @Override
    public void onExpiration() {
        // the preset REQUEST_TIMED_OUT results went out in onComplete; the purgatory counts expiries
    }
}
