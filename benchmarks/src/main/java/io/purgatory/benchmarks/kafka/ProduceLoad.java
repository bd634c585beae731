package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.KafkaCluster;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * acks=all idempotent produce from one {@link KafkaProducer}: at a fixed rate, each record's latency counted from
 * its scheduled send time (so that a stall of the sender counts too), or as fast as the producer's buffer takes
 * records, counted from the send call.
 *
 * <p>Not thread-safe: one thread calls {@link #run}. The latency histogram is written by the producer's one I/O
 * thread (where callbacks run) and read after {@link KafkaProducer#flush()}, which waits for every callback.
 */
final class ProduceLoad implements AutoCloseable {

    private static final long HIGHEST_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(5);

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final byte[] value;
    private final int rate;

    /** {@code rate} records per second, or 0 for as fast as the producer takes them. */
    ProduceLoad(KafkaCluster cluster, String topic, int recordSize, int rate) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(config);
        this.topic = topic;
        this.value = new byte[recordSize];
        this.rate = rate;
    }

    /**
     * Produces for {@code seconds} and waits for every ack.
     *
     * @return the records' latencies, in microseconds
     * @throws IllegalStateException if a send failed
     */
    Histogram run(int seconds) {
        Histogram latency = new Histogram(HIGHEST_LATENCY_MICROS, 3);
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong sent = new AtomicLong();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long interval = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / rate;
        for (long i = 0; ; i++) {
            long scheduled = rate == 0 ? System.nanoTime() : start + i * interval;
            if (scheduled >= end) {
                break;
            }
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            sent.incrementAndGet();
            producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                } else {
                    latency.recordValue(Math.min(HIGHEST_LATENCY_MICROS, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - scheduled)));
                }
            });
        }
        producer.flush();
        if (failure.get() != null) {
            throw new IllegalStateException("a send failed: " + failure.get(), failure.get());
        }
        return latency;
    }

    @Override
    public void close() {
        producer.close();
    }
}
