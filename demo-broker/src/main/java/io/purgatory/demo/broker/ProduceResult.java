package io.purgatory.demo.broker;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of one partition of a produce request. Immutable.
 *
 * @param error the partition's error code
 * @param baseOffset offset of the first appended record, or -1 when nothing was appended
 * @param waitsFor the partition whose ISR must reach {@code endOffset} before {@code error} is
 *     final, or {@code null} when the result is already settled
 * @param endOffset the log end offset that settles this result
 */
record ProduceResult(Errors error, long baseOffset, Partition waitsFor, long endOffset) {
    static final long NO_OFFSET = -1L;

    static ProduceResult failed(Errors error) {
        return new ProduceResult(error, NO_OFFSET, null, NO_OFFSET);
    }

    static ProduceResult appended(long baseOffset) {
        return new ProduceResult(Errors.NONE, baseOffset, null, NO_OFFSET);
    }

    /** Appended, waiting for the ISR; it times out unless {@link #settled} first. */
    static ProduceResult awaitingReplication(Partition partition, long baseOffset, long endOffset) {
        return new ProduceResult(Errors.REQUEST_TIMED_OUT, baseOffset, partition, endOffset);
    }

    ProduceResult settled(Errors status) {
        return new ProduceResult(status, baseOffset, null, endOffset);
    }
}
