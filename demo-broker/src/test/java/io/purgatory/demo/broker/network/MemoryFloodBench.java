package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.FetchTest;
import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.WireClient.Answer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Floods that fill the demo broker's memory budget, and a good producer beside them: a KafkaProducer
 * ({@code acks=all}, one 100-byte record at a time, as in {@link HostileBench}) for {@code seconds}
 * alone, then {@code seconds} while three floods run at once: two connections pipelining 1 MB
 * {@code acks=1} produces over the 110 partitions of {@code flood}, one connection sending 8 MB
 * OffsetCommits (1,000 partitions of {@code wide}, 4,096-character metadata) to a new group each
 * time, and four connections each keeping 100 fetches of the 1,000 partitions of {@code wide}
 * waiting (max wait 300 s). Prints the producer's percentiles for both phases and what the floods
 * got, by error code. A benchmark, not a test: run it by hand (docs/benchmarks.md) against a broker
 * started with {@code --topic demo:3 --topic flood:110 --topic wide:1000}.
 *
 * <pre>
 * java -cp demo-broker/target/demo-broker.jar:demo-broker/target/test-classes \
 *     io.purgatory.demo.broker.network.MemoryFloodBench PORT SECONDS
 * </pre>
 */
public final class MemoryFloodBench {
    private static final int WIDE_PARTITIONS = 1000;
    private static final int WINDOW = 8;

    private final int port;
    private final AtomicBoolean flooding = new AtomicBoolean(true);
    private final ConcurrentHashMap<String, LongAdder> outcomes = new ConcurrentHashMap<>();

    private MemoryFloodBench(int port) {
        this.port = port;
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[1]);
        long[] idle = HostileBench.produce(port, "demo", seconds);
        MemoryFloodBench bench = new MemoryFloodBench(port);
        for (int c = 0; c < 2; c++) {
            bench.flood("produce-" + c, bench::produceFlood);
        }
        bench.flood("commit", bench::commitFlood);
        for (int c = 0; c < 4; c++) {
            bench.flood("fetch-" + c, bench::fetchFlood);
        }
        long[] flooded = HostileBench.produce(port, "demo", seconds);
        bench.flooding.set(false); // the flood threads are daemons: a fetch flood may wait on a parked fetch, and is left to end with the JVM
        System.out.printf("good producer acks=all, alone:          %s%n", HostileBench.percentiles(idle));
        System.out.printf("good producer acks=all, beside floods:  %s%n", HostileBench.percentiles(flooded));
        System.out.printf("the floods got: %s%n", new java.util.TreeMap<>(bench.outcomes));
    }

    /** A flood's body: it runs while {@link #flooding}, on its own connection. */
    private interface Flood {
        void run(WireClient client) throws Exception;
    }

    private void flood(String name, Flood flood) {
        Thread thread = new Thread(() -> {
            try (WireClient client = new WireClient(port)) {
                flood.run(client);
            } catch (Exception e) {
                count(name + " ended: " + e);
            }
        }, "flood-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
    }

    private void produceFlood(WireClient client) throws Exception {
        byte[] megabyte = new byte[1_000_000];
        ArrayDeque<CompletableFuture<Answer>> window = new ArrayDeque<>();
        for (int i = 0; flooding.get(); i++) {
            if (window.size() == WINDOW) {
                ProduceResponse response = (ProduceResponse) window.poll().get(60, TimeUnit.SECONDS).response();
                count("1 MB produce: " + Errors.forCode(response.data().responses().iterator().next().partitionResponses().get(0).errorCode()));
            }
            window.add(client.send(WireClient.produce("flood", i % 110, (short) 1, 30_000,
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(megabyte)), (short) 9)));
        }
    }

    private void commitFlood(WireClient client) throws Exception {
        OffsetCommitRequestTopic topic = new OffsetCommitRequestTopic().setName("wide");
        for (int p = 0; p < WIDE_PARTITIONS; p++) {
            topic.partitions().add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(0)
                    .setCommittedMetadata("m".repeat(4096)));
        }
        for (int i = 0; flooding.get(); i++) {
            OffsetCommitRequest commit = new OffsetCommitRequest(new OffsetCommitRequestData().setGroupId("flood-" + i)
                    .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(topic)), (short) 8);
            OffsetCommitResponse response = (OffsetCommitResponse) client.send(commit).get(60, TimeUnit.SECONDS).response();
            count("8 MB commit, last partition: "
                    + Errors.forCode(response.data().topics().get(0).partitions().get(WIDE_PARTITIONS - 1).errorCode()));
        }
    }

    private void fetchFlood(WireClient client) throws Exception {
        FetchRequestData wide = FetchTest.fetch(300_000, Integer.MAX_VALUE, new long[WIDE_PARTITIONS]);
        wide.topics().get(0).setTopic("wide");
        ArrayDeque<CompletableFuture<Answer>> waiting = new ArrayDeque<>();
        while (flooding.get()) {
            while (waiting.size() < 100) {
                waiting.add(client.send(new FetchRequest(wide, (short) 12)));
            }
            waiting.poll().get(600, TimeUnit.SECONDS); // answered at once when the parked share is full
            count("1,000-partition fetch answered before its max wait");
        }
    }
}
