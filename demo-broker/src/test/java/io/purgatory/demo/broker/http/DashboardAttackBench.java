package io.purgatory.demo.broker.http;

import io.purgatory.demo.broker.WireClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.requests.OffsetCommitRequest;

/**
 * The three attacks on the dashboard's port, one after the other, each for {@code seconds}, and a
 * new client beside each: every 250 ms a new connection asks for {@code /api/state} and is timed
 * until the whole answer is read (5 s at most). Prints, per attack, the new client's answers, their
 * median and largest time, how many took more than a second, and the requests not answered, by how
 * (closed without an answer, timed out, another status).
 *
 * <ul>
 *   <li><b>slowloris</b>: 40 connections, each sending one byte of a request's headers every 5 s.</li>
 *   <li><b>scrapes</b>: after committing offsets of the 1,000 partitions of {@code wide} for 225
 *       groups (225,000 offsets, so {@code /metrics} is tens of megabytes), 32 connections each send
 *       20 pipelined {@code /metrics} requests and close; the new client is timed while they do and
 *       for {@code seconds} after.</li>
 *   <li><b>connects</b>: 8 threads opening connections to the full port and closing them, as fast as
 *       they can; prints how many (count the broker's log lines about refusals beside it).</li>
 * </ul>
 *
 * The attackers connect from {@code ATTACKER_ADDRESS} (default {@code 127.0.0.2}: another host,
 * as far as the broker's per-address caps can tell, on Linux's loopback), the new client from
 * {@code 127.0.0.1}; give {@code 127.0.0.1} to attack from the client's own address.
 *
 * <p>A benchmark, not a test: run it by hand (docs/benchmarks.md) against a broker started with
 * {@code --topic wide:1000}.
 *
 * <pre>
 * java -cp demo-broker/target/demo-broker.jar:demo-broker/target/test-classes \
 *     io.purgatory.demo.broker.http.DashboardAttackBench KAFKA_PORT HTTP_PORT SECONDS [ATTACKER_ADDRESS]
 * </pre>
 */
public final class DashboardAttackBench {
    private static final long PROBE_EVERY_MS = 250;
    private static final String ANSWERED = "answered";
    private static final int PROBE_TIMEOUT_MS = 5_000;
    private static final int GROUPS = 225;
    private static final int PARTITIONS = 1_000;

    private final int httpPort;
    private final InetAddress attacker;

    private DashboardAttackBench(int httpPort, InetAddress attacker) {
        this.httpPort = httpPort;
        this.attacker = attacker;
    }

    /** A connection to the dashboard from the attackers' address. */
    private Socket attackerSocket() throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(attacker, 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), httpPort));
        return socket;
    }

    public static void main(String[] args) throws Exception {
        int kafkaPort = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[2]);
        InetAddress attacker = InetAddress.getByName(args.length > 3 ? args[3] : "127.0.0.2");
        DashboardAttackBench bench = new DashboardAttackBench(Integer.parseInt(args[1]), attacker);
        System.out.println("attackers from " + attacker.getHostAddress() + ", the new client from 127.0.0.1");
        System.out.println("alone:     " + bench.probe(seconds, () -> { }));
        System.out.println("slowloris: " + bench.probe(seconds, bench::slowloris));
        commitOffsets(kafkaPort);
        System.out.println("alone, 225,000 offsets: " + bench.probe(seconds, () -> { }));
        System.out.println("scrapes:   " + bench.probe(seconds, bench::scrapes));
        System.out.println("after the scrapers left: " + bench.probe(seconds, () -> { }));
        AtomicLong connects = new AtomicLong();
        System.out.println("connects:  " + bench.probe(seconds, () -> bench.connects(connects)) + "; " + connects.get() + " connections made");
    }

    /** An attack, started on its own threads; it runs until {@link #attacking} is cleared. */
    private interface Attack {
        void start() throws Exception;
    }

    private final AtomicBoolean attacking = new AtomicBoolean();

    /** Starts {@code attack}, times a new client every {@value #PROBE_EVERY_MS} ms for {@code seconds}, stops the attack. */
    private String probe(int seconds, Attack attack) throws Exception {
        attacking.set(true);
        attack.start();
        List<Long> micros = new ArrayList<>();
        Map<String, Integer> failed = new TreeMap<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            String outcome = fetchState();
            if (outcome.equals(ANSWERED)) {
                micros.add((System.nanoTime() - start) / 1_000);
            } else {
                failed.merge(outcome, 1, Integer::sum);
            }
            Thread.sleep(PROBE_EVERY_MS);
        }
        attacking.set(false);
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        long overASecond = Arrays.stream(sorted).filter(m -> m > 1_000_000).count();
        return String.format("%d answered, p50 %.1f ms, max %.1f ms, %d over 1 s, not answered: %s", sorted.length,
                sorted.length == 0 ? 0 : sorted[sorted.length / 2] / 1000.0, sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1000.0,
                overASecond, failed);
    }

    /** A new connection asks for {@code /api/state}: {@value #ANSWERED}, or how it was not answered. */
    private String fetchState() {
        try (Socket socket = new Socket("127.0.0.1", httpPort)) {
            socket.setSoTimeout(PROBE_TIMEOUT_MS);
            socket.getOutputStream().write("GET /api/state HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = socket.getInputStream().readAllBytes();
            String status = new String(answer, 0, Math.min(answer.length, 12), StandardCharsets.US_ASCII);
            return status.equals("HTTP/1.1 200") ? ANSWERED : answer.length == 0 ? "closed" : status;
        } catch (SocketTimeoutException e) {
            return "timed out";
        } catch (IOException e) {
            return e.getClass().getSimpleName();
        }
    }

    private void slowloris() {
        for (int c = 0; c < 40; c++) {
            daemon("slowloris-" + c, () -> {
                byte[] request = ("GET /api/state HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(36) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII);
                while (attacking.get()) {
                    try (Socket socket = attackerSocket()) {
                        OutputStream out = socket.getOutputStream();
                        for (int i = 0; i < request.length && attacking.get(); i++) {
                            out.write(request[i]);
                            out.flush();
                            Thread.sleep(5_000);
                        }
                    } catch (IOException closed) {
                        // the server closed it: open another
                    }
                }
            });
        }
    }

    private void scrapes() {
        byte[] twenty = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n".repeat(20).getBytes(StandardCharsets.US_ASCII);
        for (int c = 0; c < 32; c++) {
            daemon("scraper-" + c, () -> {
                try (Socket socket = attackerSocket()) {
                    socket.getOutputStream().write(twenty);
                } catch (IOException refused) {
                    // refused or reset: gone all the same
                }
            });
        }
    }

    private void connects(AtomicLong connects) {
        for (int c = 0; c < 8; c++) {
            daemon("connect-" + c, () -> {
                while (attacking.get()) {
                    try (Socket socket = attackerSocket()) {
                        connects.incrementAndGet();
                    } catch (IOException refused) {
                        connects.incrementAndGet();
                    }
                }
            });
        }
    }

    /** A body that may throw, run on a daemon thread (the attack threads end with the JVM if they must). */
    private interface Body {
        void run() throws Exception;
    }

    private static void daemon(String name, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                System.out.println(name + " ended: " + e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Offsets of every partition of {@code wide} for {@value #GROUPS} groups: {@code /metrics} shows each one. */
    private static void commitOffsets(int kafkaPort) throws Exception {
        OffsetCommitRequestTopic topic = new OffsetCommitRequestTopic().setName("wide");
        for (int p = 0; p < PARTITIONS; p++) {
            topic.partitions().add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(0));
        }
        try (WireClient client = new WireClient(kafkaPort)) {
            for (int g = 0; g < GROUPS; g++) {
                client.send(new OffsetCommitRequest(new OffsetCommitRequestData().setGroupId("scraped-" + g)
                        .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(topic)), (short) 8)).get(60, TimeUnit.SECONDS);
            }
        }
    }
}
