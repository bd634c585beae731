package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.network.HostileBodies.Keys;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The hostile requests against a running demo broker, and a good producer beside them: first
 * each row of the table once at N / 8 entries (warm-up), then once at N entries (time until
 * answered or closed), then a
 * KafkaProducer ({@code acks=all}, one record at a time) for {@code seconds} alone and
 * {@code seconds} while one connection per row (each in its hostile shape and with distinct names, which
 * pass the checks and are handled in full) sends its request in a loop; prints the producer's
 * latency percentiles for both phases. A benchmark, not a test: run it by hand (docs/benchmarks.md).
 *
 * <p>With {@code one} last, the hostile requests come from one client, one after the other (each on a
 * new connection); without it, one connection per request sends it in a loop, all at once.
 *
 * <p>With {@code expensive} last, the third argument is a number of connections, each sending in a
 * loop a request cheap to send and expensive to answer ({@link ExpensiveRequests}): Metadata of all
 * topics (after creating topics up to 9,990 partitions), ListGroups with DescribeGroups of every group,
 * OffsetFetch of all a group's offsets (after committing offsets of 999 partitions for 50 groups).
 *
 * <pre>
 * java -cp demo-broker/target/demo-broker.jar:demo-broker/target/test-classes \
 *     io.purgatory.demo.broker.network.HostileBench PORT TOPIC N SECONDS [one]
 * java -cp demo-broker/target/demo-broker.jar:demo-broker/target/test-classes \
 *     io.purgatory.demo.broker.network.HostileBench PORT TOPIC CONNECTIONS SECONDS expensive
 * </pre>
 */
public final class HostileBench {
    private HostileBench() {
    }

    /** One row of the table. */
    private record Row(String what, ApiKeys api, short version, String path, String keyField, Keys keys) {
        ByteBuffer frame(int n, int correlationId) {
            return HostileBodies.frame(api, version, correlationId, HostileBodies.body(api, version, path, keyField, keys, n));
        }

        /** The same request with distinct ordinary names: what passes the checks and is handled in full. */
        Row distinct() {
            return new Row(what.replaceAll(", (protocols|topics) all .*|, distinct names of one hash", ", distinct names"), api, version, path,
                    keyField, Keys.DISTINCT);
        }
    }

    private static final List<Row> ROWS = List.of(
            new Row("JoinGroup v5, protocols all named x", ApiKeys.JOIN_GROUP, (short) 5, "protocols", "name", Keys.EQUAL),
            new Row("OffsetDelete v0, topics all x", ApiKeys.OFFSET_DELETE, (short) 0, "topics", "name", Keys.EQUAL),
            new Row("Metadata v4, topics all x", ApiKeys.METADATA, (short) 4, "topics", "name", Keys.EQUAL),
            new Row("DeleteGroups v2, distinct names of one hash", ApiKeys.DELETE_GROUPS, (short) 2, "groups_names", null, Keys.ONE_HASH),
            new Row("DeleteTopics v5, distinct names of one hash", ApiKeys.DELETE_TOPICS, (short) 5, "topic_names", null, Keys.ONE_HASH),
            new Row("DeleteRecords v2, distinct names of one hash", ApiKeys.DELETE_RECORDS, (short) 2, "topics", "name", Keys.ONE_HASH));

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String topic = args[1];
        int n = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        if (args.length > 4 && args[4].equals("expensive")) {
            ExpensiveRequests.run(port, topic, n, seconds);
            return;
        }
        boolean oneClient = args.length > 4 && args[4].equals("one");
        System.out.println("| request | N | size | answered after |");
        System.out.println("|---|---|---|---|");
        List<Row> rows = new ArrayList<>();
        ROWS.forEach(row -> {
            rows.add(row);
            rows.add(row.distinct());
        });
        for (Row row : rows) { // warm-up: the broker's first requests load classes and compile code
            exchange(port, row.frame(n / 8, 1));
        }
        for (Row row : rows) {
            ByteBuffer frame = row.frame(n, 1);
            long start = System.nanoTime();
            String outcome = exchange(port, frame);
            System.out.printf("| %s | %,d | %,d B | %.1f ms (%s) |%n", row.what(), n, frame.remaining(), (System.nanoTime() - start) / 1e6, outcome);
        }
        long[] idle = produce(port, topic, seconds);
        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        List<Thread> attackers = new ArrayList<>();
        List<List<ByteBuffer>> clients = new ArrayList<>();
        for (Row row : rows) {
            if (oneClient && !clients.isEmpty()) {
                clients.get(0).add(row.frame(n, 1));
            } else {
                clients.add(new ArrayList<>(List.of(row.frame(n, 1))));
            }
        }
        for (List<ByteBuffer> frames : clients) {
            Thread attacker = new Thread(() -> {
                for (int i = 0; attacking.get(); i++) {
                    try {
                        exchange(port, frames.get(i % frames.size()).duplicate());
                        sent.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "hostile-" + attackers.size());
            attacker.setDaemon(true);
            attacker.start();
            attackers.add(attacker);
        }
        long[] attacked = produce(port, topic, seconds);
        attacking.set(false);
        for (Thread attacker : attackers) {
            attacker.join(5_000);
        }
        System.out.printf("good producer acks=all, alone:         %s%n", percentiles(idle));
        System.out.printf("good producer acks=all, beside hostile: %s (%,d hostile requests sent meanwhile on %d connection(s) at a time)%n",
                percentiles(attacked), sent.get(), clients.size());
    }

    /** Sends one frame on a new connection; "answered" or "closed". */
    private static String exchange(int port, ByteBuffer frame) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(120_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            try {
                byte[] response = new byte[in.readInt()];
                in.readFully(response);
                return "answered";
            } catch (EOFException | java.net.SocketException closed) {
                return "closed";
            }
        }
    }

    /** Latencies in microseconds of one-at-a-time acks=all sends for {@code seconds}. */
    static long[] produce(int port, String topic, int seconds) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        List<Long> latencies = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>(topic, new byte[100])).get(); // metadata and connection
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, new byte[100])).get();
                latencies.add((System.nanoTime() - start) / 1_000);
            }
        }
        return latencies.stream().mapToLong(Long::longValue).toArray();
    }

    static String percentiles(long[] micros) {
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        return String.format("%,d sends, p50 %.1f ms, p99 %.1f ms, max %.1f ms", sorted.length, at(sorted, 0.50), at(sorted, 0.99),
                sorted[sorted.length - 1] / 1000.0);
    }

    private static double at(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1000.0;
    }
}
