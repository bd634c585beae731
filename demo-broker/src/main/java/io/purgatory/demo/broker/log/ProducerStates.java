package io.purgatory.demo.broker.log;

import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One partition's idempotent producers, as Kafka's {@code ProducerStateManager} keeps them: for each
 * producer id with a batch in the log, its epoch and its last {@value #RECENT_BATCHES} batches'
 * sequence numbers and offsets. It is what lets a producer send a batch again after a timeout
 * without the log holding it twice:
 *
 * <ul>
 *   <li>a batch whose epoch and sequence range match one of its producer's recent batches is a
 *       <b>duplicate</b>: it is not appended, and the producer is answered with the offsets the
 *       first copy got;</li>
 *   <li>a batch of the producer's current epoch must follow its last batch's sequence (the
 *       sequence wraps from {@link Integer#MAX_VALUE} to 0), else
 *       {@link Errors#OUT_OF_ORDER_SEQUENCE_NUMBER};</li>
 *   <li>a batch of an older epoch is {@link Errors#INVALID_PRODUCER_EPOCH}; one of a newer epoch
 *       must start at sequence 0 ({@link Errors#OUT_OF_ORDER_SEQUENCE_NUMBER} otherwise) and
 *       forgets the older epoch's batches;</li>
 *   <li>a producer with no batch in the log may start at any sequence (its earlier batches may
 *       have been dropped by retention), as with Kafka.</li>
 * </ul>
 *
 * <p>A producer is forgotten once the log start offset passes its last batch, so the producers
 * kept are never more than the batches the log holds; each is counted at
 * {@value #PRODUCER_BYTES} bytes in the log's memory ({@link PartitionLog}). Batches without a
 * producer id are not looked at.
 *
 * <p>Invariant: {@code producers} is in the order of each producer's last append, so its last
 * offsets increase from the first to the last entry.
 *
 * <p>Not thread-safe: its {@link PartitionLog} calls it under the partition's lock; {@link Check}
 * and {@link Offsets} are immutable.
 */
public final class ProducerStates {
    /** Batches remembered per producer: Kafka's {@code ProducerStateEntry.NUM_BATCHES_TO_RETAIN}, a producer's most in flight. */
    static final int RECENT_BATCHES = 5;
    /**
     * Heap one producer takes here, as the log's memory counts it: the map entry and its boxed key,
     * the {@link Producer} and its four arrays of {@value #RECENT_BATCHES} (about 300 bytes on a
     * 64-bit JVM with compressed oops), rounded up.
     */
    static final int PRODUCER_BYTES = 320;

    private final Map<Long, Producer> producers = new LinkedHashMap<>();

    /**
     * What a batch is to its producer's state.
     *
     * @param error {@link Errors#NONE}, or why the batch is refused
     * @param duplicateOf the offsets of the batch's first copy when it is a duplicate, else null
     */
    public record Check(Errors error, Offsets duplicateOf) {
        static final Check APPEND = new Check(Errors.NONE, null);

        static Check refused(Errors error) {
            return new Check(error, null);
        }
    }

    /** A batch's first and last offset in the log. */
    public record Offsets(long baseOffset, long lastOffset) {
    }

    /** Whether {@code batch} is to be appended, is a duplicate, or is refused; changes nothing. */
    Check check(RecordBatch batch) {
        if (!batch.hasProducerId()) {
            return Check.APPEND;
        }
        Producer producer = producers.get(batch.producerId());
        if (producer == null) {
            return Check.APPEND;
        }
        short epoch = batch.producerEpoch();
        if (epoch < producer.epoch) {
            return Check.refused(Errors.INVALID_PRODUCER_EPOCH);
        }
        if (epoch > producer.epoch) {
            return batch.baseSequence() == 0 ? Check.APPEND : Check.refused(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        }
        Offsets duplicate = producer.find(batch.baseSequence(), batch.lastSequence());
        if (duplicate != null) {
            return new Check(Errors.NONE, duplicate);
        }
        return inSequence(producer.lastSequence(), batch.baseSequence()) ? Check.APPEND : Check.refused(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    /** How many producers appending {@code batches} would add (each {@link #PRODUCER_BYTES} more held). */
    int adding(Iterable<? extends RecordBatch> batches) {
        Set<Long> added = new HashSet<>();
        for (RecordBatch batch : batches) {
            if (batch.hasProducerId() && !producers.containsKey(batch.producerId())) {
                added.add(batch.producerId());
            }
        }
        return added.size();
    }

    /** Records {@code batch}, just appended with its offsets in the log, against its producer. */
    void appended(RecordBatch batch) {
        if (!batch.hasProducerId()) {
            return;
        }
        Producer producer = producers.remove(batch.producerId()); // put back last: the map keeps the order of last appends
        if (producer == null || batch.producerEpoch() != producer.epoch) {
            producer = new Producer(batch.producerEpoch());
        }
        producer.add(batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset());
        producers.put(batch.producerId(), producer);
    }

    /**
     * Forgets the producers whose last batch ends below {@code logStartOffset}.
     *
     * @return how many were forgotten
     */
    int forgetBefore(long logStartOffset) {
        int forgotten = 0;
        for (Iterator<Producer> it = producers.values().iterator(); it.hasNext(); ) {
            if (it.next().lastOffset() >= logStartOffset) {
                break;
            }
            it.remove();
            forgotten++;
        }
        return forgotten;
    }

    /** Forgets every producer; how many there were. */
    int clear() {
        int forgotten = producers.size();
        producers.clear();
        return forgotten;
    }

    /** Producers kept now. */
    int size() {
        return producers.size();
    }

    /** Whether {@code next} follows {@code last}, as Kafka's {@code ProducerAppendInfo.inSequence}. */
    private static boolean inSequence(int last, int next) {
        return next == DefaultRecordBatch.incrementSequence(last, 1);
    }

    /** One producer's epoch and its recent batches, oldest first, in a ring of {@value #RECENT_BATCHES}. */
    private static final class Producer {
        private final short epoch;
        private final int[] baseSequences = new int[RECENT_BATCHES];
        private final int[] lastSequences = new int[RECENT_BATCHES];
        private final long[] baseOffsets = new long[RECENT_BATCHES];
        private final long[] lastOffsets = new long[RECENT_BATCHES];
        private int count;
        private int next;

        Producer(short epoch) {
            this.epoch = epoch;
        }

        void add(int baseSequence, int lastSequence, long baseOffset, long lastOffset) {
            baseSequences[next] = baseSequence;
            lastSequences[next] = lastSequence;
            baseOffsets[next] = baseOffset;
            lastOffsets[next] = lastOffset;
            next = (next + 1) % RECENT_BATCHES;
            count = Math.min(count + 1, RECENT_BATCHES);
        }

        Offsets find(int baseSequence, int lastSequence) {
            for (int i = 0; i < count; i++) {
                if (baseSequences[i] == baseSequence && lastSequences[i] == lastSequence) {
                    return new Offsets(baseOffsets[i], lastOffsets[i]);
                }
            }
            return null;
        }

        private int newest() {
            return (next + RECENT_BATCHES - 1) % RECENT_BATCHES;
        }

        int lastSequence() {
            return lastSequences[newest()];
        }

        long lastOffset() {
            return lastOffsets[newest()];
        }
    }
}
