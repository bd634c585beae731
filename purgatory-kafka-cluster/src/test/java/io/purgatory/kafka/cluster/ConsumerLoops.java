package io.purgatory.kafka.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Kafka consumers each polling on a thread of its own until {@link #close()}, which wakes, joins and closes
 * them. The first exception a loop throws is kept for {@link #assertNoFailure()}.
 *
 * <p>Thread-safe for {@link #failed()}; {@link #start} and {@link #close()} are called from the test's thread.
 */
final class ConsumerLoops implements AutoCloseable {

    private final List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** Starts a loop: {@code setUp} (subscribe or assign) on the loop's thread, then poll and {@code onRecords}. */
    void start(KafkaConsumer<String, String> consumer, Consumer<KafkaConsumer<String, String>> setUp,
            BiConsumer<KafkaConsumer<String, String>, ConsumerRecords<String, String>> onRecords) {
        consumers.add(consumer);
        Thread thread = new Thread(() -> {
            try {
                setUp.accept(consumer);
                while (true) {
                    onRecords.accept(consumer, consumer.poll(Duration.ofMillis(200)));
                }
            } catch (WakeupException e) {
                // close() woke it
            } catch (RuntimeException | Error e) {
                failure.compareAndSet(null, e);
            }
        }, "consumer-loop-" + threads.size());
        threads.add(thread);
        thread.start();
    }

    /** True once a loop has thrown. */
    boolean failed() {
        return failure.get() != null;
    }

    /** Throws what a loop threw, if one did. */
    void assertNoFailure() {
        Throwable thrown = failure.get();
        if (thrown != null) {
            throw new AssertionError("a consumer loop failed: " + thrown, thrown);
        }
    }

    @Override
    public void close() throws InterruptedException {
        consumers.forEach(KafkaConsumer::wakeup);
        for (Thread thread : threads) {
            thread.join();
        }
        for (KafkaConsumer<String, String> consumer : consumers) {
            consumer.close(Duration.ofSeconds(1));
        }
    }
}
