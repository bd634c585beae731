package io.purgatory.benchmarks.kafka;

import io.purgatory.kafka.cluster.KafkaCluster;
import io.purgatory.kafka.cluster.KafkaNode;
import io.purgatory.kafka.cluster.NodeJmx;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;

/**
 * What the three brokers report over JMX at one moment, summed over the brokers: their JVMs' process CPU and
 * the produce requests they have handled (Kafka's {@code RequestsPerSec} meters' counts); and, apart, Kafka's
 * purgatory sizes and the heap after a full GC.
 *
 * <p>Immutable, so thread-safe.
 *
 * @param cpuNanos the brokers' process CPU time so far
 * @param produceRequests the produce requests the brokers have handled so far
 */
record BrokerSample(long cpuNanos, long produceRequests) {

    private static final List<String> PURGATORIES = List.of("Produce", "Fetch");

    static BrokerSample take(KafkaCluster cluster) {
        long cpu = 0;
        long requests = 0;
        for (KafkaNode node : cluster.nodes()) {
            try (NodeJmx jmx = cluster.jmx(node)) {
                cpu += jmx.processCpuNanos();
                for (ObjectName name : jmx.names("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,*")) {
                    requests += ((Number) jmx.attribute(name, "Count")).longValue();
                }
            }
        }
        return new BrokerSample(cpu, requests);
    }

    /** Kafka's own purgatory gauges (PurgatorySize), Produce and Fetch, summed over the brokers. */
    static Map<String, Long> parked(KafkaCluster cluster) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (KafkaNode node : cluster.nodes()) {
            try (NodeJmx jmx = cluster.jmx(node)) {
                for (String purgatory : PURGATORIES) {
                    sizes.merge(purgatory, jmx.longAttribute(
                            "kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=" + purgatory, "Value"), Long::sum);
                }
            }
        }
        return sizes;
    }

    /** The brokers' heap in use after a full GC, summed. */
    static long heapAfterGc(KafkaCluster cluster) {
        long heap = 0;
        for (KafkaNode node : cluster.nodes()) {
            try (NodeJmx jmx = cluster.jmx(node)) {
                heap += jmx.heapUsedAfterGc();
            }
        }
        return heap;
    }
}
