package io.purgatory.demo.broker;

import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.DataOutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.management.ObjectName;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Benchmark, not a test: the broker's heap per parked {@code acks=-1} produce. Starts a broker
 * in-process with replica 2 stalled, parks {@code N} one-record produces (v12, one partition, a
 * one-hour timeout) sent over {@code C} connections by writers that keep nothing per request, and
 * prints the heap after a full collection before and after, per request, and the classes whose
 * instance counts grew, per request (from the JVM's class histogram).
 *
 * <pre>
 * mvn -B -q -DskipTests package -pl demo-broker -am &amp;&amp; mvn -B -q test-compile -pl demo-broker
 * java -Xmx1g -cp demo-broker/target/demo-broker.jar:demo-broker/target/test-classes \
 *     io.purgatory.demo.broker.ParkedProduceFootprint [N [C]]
 * </pre>
 *
 * <p>Not thread-safe; a main.
 */
public final class ParkedProduceFootprint {
    private ParkedProduceFootprint() {
    }

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int connections = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int perConnection = (requests + connections - 1) / connections;
        BrokerConfig config = BrokerConfig.builder().port(0).stallReplica(2)
                .maxInFlightPerConnection(perConnection).maxParkedRequests(requests).maxConnections(connections + 1).build();
        try (DemoBroker broker = DemoBroker.start(config)) {
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                sockets.add(new Socket("localhost", broker.port()));
            }
            Map<String, long[]> before = histogram();
            long heapBefore = usedAfterGc();

            ProduceRequest produce = WireClient.produce("demo", 0, (short) -1, (int) TimeUnit.HOURS.toMillis(1), 1);
            int sent = 0;
            for (Socket socket : sockets) {
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                for (int i = 0; i < perConnection && sent < requests; i++, sent++) {
                    ByteBuffer frame = produce.serializeWithHeader(new RequestHeader(produce.apiKey(), produce.version(), "footprint", i));
                    out.writeInt(frame.remaining());
                    out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
                }
                out.flush();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (broker.replicaManager().producePurgatoryMetrics().delayed() < requests && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // not spinning: the broker needs the cores
            }
            long heapAfter = usedAfterGc();
            Map<String, long[]> after = histogram();

            System.out.printf(Locale.ROOT, "%,d parked produces over %d connections: heap after full GC %,d -> %,d bytes: %.0f bytes per request%n",
                    broker.replicaManager().producePurgatoryMetrics().delayed(), connections, heapBefore, heapAfter,
                    (heapAfter - heapBefore) / (double) requests);
            System.out.println("classes whose instances grew, per parked request (instances, bytes):");
            List<Map.Entry<String, long[]>> grown = new ArrayList<>();
            after.forEach((name, now) -> {
                long[] was = before.getOrDefault(name, new long[2]);
                long bytes = now[1] - was[1];
                if (bytes > requests / 2) {
                    grown.add(Map.entry(name, new long[] {now[0] - was[0], bytes}));
                }
            });
            grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
            for (Map.Entry<String, long[]> entry : grown) {
                System.out.printf(Locale.ROOT, "  %8.2f %8.1f  %s%n", entry.getValue()[0] / (double) requests,
                        entry.getValue()[1] / (double) requests, entry.getKey());
            }
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private static long usedAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Class name to {instances, bytes}, from the JVM's class histogram (which collects first). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                classes.merge(fields[3], new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])},
                        (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
        return classes;
    }
}
