package io.purgatory.demo.broker;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A real {@link KafkaConsumer} that subscribes to a topic in a group and polls on its own thread,
 * committing synchronously after each poll, until closed. It records what it read and its
 * assignment. Thread-safe: the consumer is confined to its thread; what it recorded is in
 * concurrent collections.
 */
public final class GroupConsumer implements AutoCloseable {
    /** A record read: partition and offset. */
    public record Read(String member, int partition, long offset) {
    }

    private final String name;
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Read> reads;
    private final Set<TopicPartition> assignment = new CopyOnWriteArraySet<>();
    private final AtomicInteger rebalances = new AtomicInteger();
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * @param extra consumer settings over the test's defaults (auto commit off, 200 ms heartbeats)
     */
    public GroupConsumer(String name, int port, String group, String topic, ConcurrentLinkedQueue<Read> reads, Map<String, Object> extra) {
        this.name = name;
        this.reads = reads;
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 10_000);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        config.putAll(extra);
        this.consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                assignment.removeAll(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                assignment.addAll(partitions);
                rebalances.incrementAndGet();
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                assignment.removeAll(partitions);
            }
        });
        this.thread = new Thread(this::run, "group-consumer-" + name);
        thread.start();
    }

    private void run() {
        try {
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(50))) {
                    reads.add(new Read(name, record.partition(), record.offset()));
                }
                consumer.commitSync();
            }
        } catch (RuntimeException | Error e) {
            failure = e;
        } finally {
            consumer.close();
        }
    }

    String name() {
        return name;
    }

    /** The partitions assigned now. */
    public Set<TopicPartition> assignment() {
        return Set.copyOf(assignment);
    }

    /** Times partitions were assigned to it (each generation it took part in). */
    int rebalances() {
        return rebalances.get();
    }

    /** What made its poll loop stop, or null. */
    Throwable failure() {
        return failure;
    }

    /** Stops polling and closes the consumer (a dynamic member leaves the group). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join();
    }
}
