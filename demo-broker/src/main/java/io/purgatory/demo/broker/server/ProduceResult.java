package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of one partition of a produce request. Immutable.
 *
 * @param key where the outcome goes in the response
 * @param error the partition's error code
 * @param baseOffset offset of the first appended record, or -1 when nothing was appended
 * @param waitsFor the partition whose ISR must reach {@code endOffset} before {@code error} is
 *     final, or {@code null} when the result is already settled
 * @param endOffset the log end offset that settles this result
 */
public record ProduceResult(Key key, Errors error, long baseOffset, Partition waitsFor, long endOffset) {
    static final long NO_OFFSET = -1L;

    /**
     * Which partition of the request a result answers, as the request named it: the topic by name
     * (produce v12 and older) or id (v13 and newer), and the partition index. A request may list a
     * partition twice; each entry gets its own result. Immutable.
     */
    public record Key(String topic, Uuid topicId, int partition) {
    }

    public static ProduceResult failed(Key key, Errors error) {
        return new ProduceResult(key, error, NO_OFFSET, null, NO_OFFSET);
    }

    static ProduceResult appended(Key key, long baseOffset) {
        return new ProduceResult(key, Errors.NONE, baseOffset, null, NO_OFFSET);
    }

    /** Appended, waiting for the ISR; it times out unless {@link #settled} first. */
    static ProduceResult awaitingReplication(Key key, Partition partition, long baseOffset, long endOffset) {
        return new ProduceResult(key, Errors.REQUEST_TIMED_OUT, baseOffset, partition, endOffset);
    }

    ProduceResult settled(Errors status) {
        return new ProduceResult(key, status, baseOffset, null, endOffset);
    }
}
