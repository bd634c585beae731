package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consumers that long-poll a topic's partitions (consumer {@code i} reads partition {@code i % partitions} from
 * its end), each on a thread of its own with a small stack, with fetch.min.bytes 1 MiB and fetch.max.wait.ms 500:
 * so that Kafka's fetch purgatory holds about one fetch per consumer.
 *
 * <p>{@link #start} and {@link #close()} are called from one thread; each consumer stays on its own thread
 * until {@link #close()} wakes it ({@link KafkaConsumer#wakeup()}, the one consumer method safe from another thread).
 */
final class LongPollers implements AutoCloseable {

    private static final long STACK_BYTES = 256 * 1024;

    private final List<KafkaConsumer<byte[], byte[]>> consumers;
    private final List<Thread> threads;

    private LongPollers(List<KafkaConsumer<byte[], byte[]>> consumers, List<Thread> threads) {
        this.consumers = consumers;
        this.threads = threads;
    }

    static LongPollers none() {
        return new LongPollers(List.of(), List.of());
    }

    static LongPollers start(KafkaCluster cluster, String topic, int partitions, int count) {
        List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Properties config = new Properties();
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1024 * 1024);
            config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
            TopicPartition partition = new TopicPartition(topic, i % partitions);
            Thread thread = new Thread(null, () -> {
                try {
                    consumer.assign(List.of(partition));
                    while (true) {
                        consumer.poll(Duration.ofSeconds(1));
                    }
                } catch (WakeupException e) {
                    // close() woke it
                }
            }, "long-poller-" + i, STACK_BYTES);
            consumers.add(consumer);
            threads.add(thread);
            thread.start();
        }
        return new LongPollers(consumers, threads);
    }

    @Override
    public void close() throws InterruptedException {
        consumers.forEach(KafkaConsumer::wakeup);
        for (Thread thread : threads) {
            thread.join();
        }
        consumers.forEach(c -> c.close(Duration.ofSeconds(1)));
    }
}
