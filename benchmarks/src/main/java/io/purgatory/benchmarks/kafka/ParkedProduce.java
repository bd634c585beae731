package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.KafkaCluster;
import io.purgatory.kafka.cluster.KafkaNode;
import io.purgatory.kafka.cluster.NodeJmx;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How many acks=all produces the brokers held parked over a measured period, from samples taken every
 * {@value #INTERVAL_MS} ms: Kafka's own gauges of the Produce purgatory, summed over the brokers, and the records
 * the clients had in flight.
 *
 * <p>Immutable, so thread-safe; {@link Sampler} builds one.
 *
 * @param samples how many samples were taken
 * @param operationsMean Kafka's {@code NumDelayedOperations} (Produce), the produce requests parked: the mean
 * @param operationsMax the same, the most at one sample
 * @param watchedMean Kafka's {@code PurgatorySize} (Produce), the watch-list entries (one per partition of a parked
 *     request, and completed ones not yet purged): the mean
 * @param watchedMax the same, the most at one sample
 * @param inFlightMean records handed to the producers and not yet acked: the mean
 * @param inFlightMax the same, the most at one sample
 */
record ParkedProduce(int samples, double operationsMean, long operationsMax, double watchedMean, long watchedMax,
        double inFlightMean, long inFlightMax) {

    static final long INTERVAL_MS = 250;

    private static final String GAUGE = "kafka.server:type=DelayedOperationPurgatory,delayedOperation=Produce,name=";

    String line() {
        return String.format(Locale.ROOT, "parked produce requests (NumDelayedOperations) mean %,.0f max %,d; watch entries "
                        + "(PurgatorySize) mean %,.0f max %,d; records in flight mean %,.0f max %,d (%d samples)",
                operationsMean, operationsMax, watchedMean, watchedMax, inFlightMean, inFlightMax, samples);
    }

    /**
     * Samples the gauges on a thread of its own from {@link #start} to {@link #stop()}, over one JMX connection per
     * broker. Its figures are confined to that thread until {@link #stop()} joins it.
     */
    static final class Sampler {

        private final KafkaCluster cluster;
        private final LongSupplier inFlight;
        private final CountDownLatch stop = new CountDownLatch(1);
        private final Thread thread;
        private final long[] operations = new long[2];
        private final long[] watched = new long[2];
        private final long[] records = new long[2];
        private int samples;
        private RuntimeException failure;

        private Sampler(KafkaCluster cluster, LongSupplier inFlight) {
            this.cluster = cluster;
            this.inFlight = inFlight;
            this.thread = new Thread(this::sample, "parked-produce-sampler");
        }

        static Sampler start(KafkaCluster cluster, LongSupplier inFlight) {
            Sampler sampler = new Sampler(cluster, inFlight);
            sampler.thread.start();
            return sampler;
        }

        /** Stops sampling and returns the figures. */
        ParkedProduce stop() throws InterruptedException {
            stop.countDown();
            thread.join();
            if (failure != null) {
                throw failure;
            }
            return new ParkedProduce(samples, mean(operations), operations[1], mean(watched), watched[1], mean(records), records[1]);
        }

        private double mean(long[] figure) {
            return samples == 0 ? Double.NaN : (double) figure[0] / samples;
        }

        private void sample() {
            List<NodeJmx> connections = new ArrayList<>();
            try {
                for (KafkaNode node : cluster.nodes()) {
                    connections.add(cluster.jmx(node));
                }
                do {
                    long parked = 0;
                    long entries = 0;
                    for (NodeJmx jmx : connections) {
                        parked += jmx.longAttribute(GAUGE + "NumDelayedOperations", "Value");
                        entries += jmx.longAttribute(GAUGE + "PurgatorySize", "Value");
                    }
                    add(operations, parked);
                    add(watched, entries);
                    add(records, inFlight.getAsLong());
                    samples++;
                } while (!stop.await(INTERVAL_MS, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                connections.forEach(NodeJmx::close);
            }
        }

        /** figure[0]: the sum of the samples, figure[1]: the largest. */
        private static void add(long[] figure, long sample) {
            figure[0] += sample;
            figure[1] = Math.max(figure[1], sample);
        }
    }
}
