package io.purgatory.demo.broker.server;

import io.purgatory.DelayedOperation;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;

/**
 * An {@code acks=-1} produce waiting until every ISR replica of each of its partitions has its
 * records. It watches each waiting partition's {@link org.apache.kafka.common.TopicPartition} at
 * the end offset it needs there: it can complete once that partition's high watermark reaches the
 * offset, which {@code advance(partition, highWatermark)} reports, or when the ISR changes, which
 * {@code checkAndComplete(partition)} reports.
 *
 * <p>As in Kafka, a waiting partition's result is preset to {@link Errors#REQUEST_TIMED_OUT} and
 * replaced once its replicas reach the offset ({@link Errors#NONE}, or
 * {@link Errors#NOT_ENOUGH_REPLICAS_AFTER_APPEND} when the ISR shrank below the minimum). When the
 * timeout passes first, the preset results are what the client gets.
 *
 * <p>When the produce is cancelled with an {@link Errors} as its reason (the broker shuts down and
 * cancels what is parked on its partitions with {@link Errors#NOT_LEADER_OR_FOLLOWER}), the
 * partitions still waiting are answered with that error instead.
 *
 * <p>Thread-safe through the purgatory's contract: the results are read and written only in
 * {@link #tryComplete} and {@link #onComplete}, which run under this operation's lock. The
 * responder runs exactly once, on whichever thread completed the operation.
 */
public final class DelayedProduce extends DelayedOperation {
    private final ProduceResult[] results; // an array, not a list: one object less per parked produce
    private final Consumer<List<ProduceResult>> responder;

    /**
     * @param results one per partition of the request, each keyed by its entry; those with a
     *     {@link ProduceResult#waitsFor() partition to wait for} are preset to time out
     */
    DelayedProduce(long timeoutMs, List<ProduceResult> results, Consumer<List<ProduceResult>> responder) {
        super(timeoutMs);
        this.results = results.toArray(new ProduceResult[0]);
        this.responder = responder;
    }

    @Override
    public boolean tryComplete() {
        boolean allDone = true;
        for (int i = 0; i < results.length; i++) {
            ProduceResult result = results[i];
            if (result.waitsFor() != null) {
                Errors status = result.waitsFor().replicationStatus(result.endOffset());
                if (status == null) {
                    allDone = false;
                } else {
                    results[i] = result.settled(status);
                }
            }
        }
        return allDone && forceComplete();
    }

    @Override
    public void onComplete() {
        if (cancelReason() instanceof Errors gone) {
            for (int i = 0; i < results.length; i++) {
                if (results[i].waitsFor() != null) {
                    results[i] = results[i].settled(gone);
                }
            }
        }
        responder.accept(List.of(results));
    }

    @Override
    public void onExpiration() {
        // the preset REQUEST_TIMED_OUT results went out in onComplete; the purgatory counts expiries
    }
}
