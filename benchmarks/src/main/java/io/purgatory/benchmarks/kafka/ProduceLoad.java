package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * acks=all idempotent produce at a fixed rate, each record's latency counted from its scheduled send time (so that
 * a stall of the sender counts too), or as fast as the producer's buffer takes records, counted from the send call.
 * Either one {@link KafkaProducer} whose partitioner spreads the records ({@link #single}), or a fleet of producers
 * that each keep one produce request in flight per broker ({@link #fleet}).
 *
 * <p>Not thread-safe: one thread calls {@link #run} and {@link #close()}. The latency histogram is written by the
 * producers' I/O threads (where callbacks run), so it is synchronized, and read after {@link KafkaProducer#flush()},
 * which waits for every callback; {@link #inFlight()} may be read from any thread.
 */
final class ProduceLoad implements AutoCloseable {

    private static final long HIGHEST_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(5);
    private static final int CONNECT_THREADS = 8;

    private final List<KafkaProducer<byte[], byte[]>> producers;
    private final String topic;
    private final byte[] value;
    private final int rate;
    /** 0: the producer's partitioner picks; else records go round-robin over this many partitions. */
    private final int partitions;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();

    private ProduceLoad(List<KafkaProducer<byte[], byte[]>> producers, String topic, int recordSize, int rate, int partitions) {
        this.producers = producers;
        this.topic = topic;
        this.value = new byte[recordSize];
        this.rate = rate;
        this.partitions = partitions;
    }

    /** One producer with Kafka's defaults; {@code rate} records per second, or 0 for as fast as it takes them. */
    static ProduceLoad single(KafkaCluster cluster, String topic, int recordSize, int rate) {
        return new ProduceLoad(List.of(new KafkaProducer<>(config(cluster, Map.of()))), topic, recordSize, rate, 0);
    }

    /**
     * {@code count} producers sharing {@code rate} records per second, the records dealt round-robin over the
     * producers and, per producer, over the topic's {@code partitions}: so every producer writes to every partition
     * leader. Each keeps at most one produce request in flight per broker ({@code max.in.flight.requests.per.connection}
     * 1): Kafka reads a connection's next request only after it answered the one before, so a request waiting for
     * replication is the only one of that connection parked on the broker, and what the producer takes meanwhile
     * goes into its next request. No JMX reporter per producer; small batches and buffers (the records are few per
     * request). Each producer has the topic's metadata before this returns.
     */
    static ProduceLoad fleet(KafkaCluster cluster, String topic, int partitions, int recordSize, int rate, int count)
            throws Exception {
        Properties config = config(cluster, Map.of(
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.METRIC_REPORTER_CLASSES_CONFIG, "",
                ProducerConfig.BATCH_SIZE_CONFIG, 4096,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 1024 * 1024));
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        ExecutorService connect = Executors.newFixedThreadPool(CONNECT_THREADS);
        try {
            List<Future<?>> metadata = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
                producers.add(producer);
                metadata.add(connect.submit(() -> producer.partitionsFor(topic)));
            }
            for (Future<?> future : metadata) {
                future.get();
            }
        } catch (Exception | Error e) {
            producers.forEach(p -> p.close(Duration.ZERO));
            throw e;
        } finally {
            connect.shutdownNow();
        }
        return new ProduceLoad(List.copyOf(producers), topic, recordSize, rate, partitions);
    }

    private static Properties config(KafkaCluster cluster, Map<String, Object> overrides) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.putAll(overrides);
        return config;
    }

    /** Produces for {@code seconds} and waits for every ack; see {@link #run(int, int, Runnable, Runnable)}. */
    Histogram run(int seconds) {
        return run(0, seconds, () -> { }, () -> { });
    }

    /**
     * Produces for {@code warmupSeconds}, then on without a pause for {@code seconds}, the measured part: runs
     * {@code atStart} as it begins and {@code atEnd} once its last record is handed to a producer (the records of its
     * last moments still in flight, as those of the warm-up's last moments were at its start), then waits for every
     * ack.
     *
     * @return the latencies of the records scheduled in the measured part, in microseconds
     * @throws IllegalStateException if a send failed
     */
    Histogram run(int warmupSeconds, int seconds, Runnable atStart, Runnable atEnd) {
        Histogram latency = new SynchronizedHistogram(HIGHEST_LATENCY_MICROS, 3);
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long measuredFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = measuredFrom + TimeUnit.SECONDS.toNanos(seconds);
        long interval = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / rate;
        int fleet = producers.size();
        boolean measuring = false;
        for (long i = 0; ; i++) {
            long scheduled = rate == 0 ? System.nanoTime() : start + i * interval;
            if (scheduled >= end) {
                break;
            }
            if (!measuring && scheduled >= measuredFrom) {
                atStart.run();
                measuring = true;
            }
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            ProducerRecord<byte[], byte[]> record = partitions == 0
                    ? new ProducerRecord<>(topic, value)
                    : new ProducerRecord<>(topic, (int) ((i / fleet) % partitions), null, value);
            boolean measured = measuring;
            sent.incrementAndGet();
            producers.get((int) (i % fleet)).send(record, (metadata, error) -> {
                answered.incrementAndGet();
                if (error != null) {
                    failure.compareAndSet(null, error);
                } else if (measured) {
                    latency.recordValue(Math.min(HIGHEST_LATENCY_MICROS, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - scheduled)));
                }
            });
        }
        atEnd.run();
        producers.forEach(KafkaProducer::flush);
        if (failure.get() != null) {
            throw new IllegalStateException("a send failed: " + failure.get(), failure.get());
        }
        return latency;
    }

    /** Records handed to the producers and not yet acked (in their buffers, on the wire or parked on a broker). */
    long inFlight() {
        return sent.get() - answered.get();
    }

    @Override
    public void close() {
        producers.forEach(p -> p.close(Duration.ofSeconds(5)));
    }
}
