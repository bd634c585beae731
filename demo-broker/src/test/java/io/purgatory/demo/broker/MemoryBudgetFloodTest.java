package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker in its own JVM at {@code -Xmx1g} (its default memory budget: half of that) under the
 * floods that ran a broker without a budget out of memory: 1.2 GB of 1 MB acks=1 produces over 110
 * partitions (retention alone keeps 64 MiB a partition), 8 MB OffsetCommits of 1,000 partitions with
 * 4,096-character metadata to new groups, and fetches of 1,000 partitions parked for 300 s. Past the
 * budget the broker drops the oldest batches of the largest logs, evicts the oldest groups without
 * members to take each commit, and answers the fetches at once (each logged); a good client is
 * served throughout, and the process is alive at the end (it exits on an {@code OutOfMemoryError}).
 */
@Tag("integration")
class MemoryBudgetFloodTest {
    private static final short ACKS_ONE = 1;
    private static final short OFFSET_COMMIT_V8 = 8;
    private static final int WIDE_PARTITIONS = 1000;
    private static final int WINDOW = 8;

    @Test
    void aFloodPastTheBudgetIsRefusedWhileAGoodClientIsServedAndTheBrokerKeepsItsHeap(@TempDir Path dir) throws Exception {
        Path portFile = dir.resolve("port");
        Path output = dir.resolve("output"); // standard output and error: the test class path's logback writes to the first
        Process broker = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(),
                "--port", "0", "--port-file", portFile.toString(), "--http-port", "-1",
                "--topic", "demo:3", "--topic", "flood:110", "--topic", "wide:" + WIDE_PARTITIONS)
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            Waits.soon().atMost(60, TimeUnit.SECONDS).until(() -> Files.exists(portFile) && !Files.readString(portFile).isBlank());
            int port = Integer.parseInt(Files.readString(portFile).trim());
            try (WireClient good = new WireClient(port)) {
                assertEquals(Errors.NONE, commit(good, "good", "demo", 3, ""), "the good group commits before the flood");

                floodLogs(port, 1_200);
                assertEquals(Errors.NONE.code(), produce(good, "demo", 0, 100), "a good produce after 1.2 GB of records");

                List<Errors> commits = new ArrayList<>();
                try (WireClient flooder = new WireClient(port)) {
                    for (int i = 0; i < 100; i++) { // 820 MB counted
                        commits.add(commit(flooder, "flood-" + i, "wide", WIDE_PARTITIONS, "m".repeat(4096)));
                    }
                }
                assertEquals(List.of(Errors.NONE), commits.stream().distinct().toList(),
                        "past the offsets' share each commit evicts the oldest groups without members");
                assertEquals(Errors.NONE, commit(good, "good", "demo", 3, ""), "the good group commits after the flood");

                List<WireClient> fetchers = new ArrayList<>();
                for (int c = 0; c < 10; c++) {
                    WireClient fetcher = new WireClient(port);
                    fetchers.add(fetcher);
                    for (int i = 0; i < 100; i++) {
                        FetchRequestData wide = FetchTest.fetch(300_000, Integer.MAX_VALUE, new long[WIDE_PARTITIONS]);
                        wide.topics().get(0).setTopic("wide");
                        fetcher.send(new FetchRequest(wide, (short) 12));
                    }
                }
                Waits.soon().until(() -> Files.readString(output).contains("answered at once")); // past the parked share
                assertEquals(Errors.NONE.code(), produce(good, "demo", 1, 100), "a good produce beside the parked fetches");
                for (WireClient fetcher : fetchers) {
                    fetcher.close();
                }
            }
            String log = Files.readString(output);
            assertTrue(broker.isAlive(), "no OutOfMemoryError: " + log);
            assertFalse(log.contains("out of memory") || log.contains("OutOfMemoryError"), log);
            assertTrue(log.contains("dropped the oldest"), "the logs kept to their share: " + log);
            assertTrue(log.contains("offsets share is full: evicted group"), "the offsets kept to their share: " + log);
            assertTrue(log.contains("a fetch of " + WIDE_PARTITIONS + " partition(s) waiting: answered at once"), "the parked fetches too: " + log);
        } finally {
            broker.destroy();
            if (!broker.waitFor(30, TimeUnit.SECONDS)) {
                broker.destroyForcibly();
            }
        }
    }

    /** {@code requests} acks=1 produces of one 1,000,000-byte record, round robin over the 110 partitions, on four connections. */
    private static void floodLogs(int port, int requests) throws Exception {
        byte[] megabyte = new byte[1_000_000];
        List<WireClient> flooders = new ArrayList<>();
        List<ArrayDeque<CompletableFuture<Answer>>> windows = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            flooders.add(new WireClient(port));
            windows.add(new ArrayDeque<>());
        }
        try {
            for (int i = 0; i < requests; i++) {
                int c = i % flooders.size();
                ArrayDeque<CompletableFuture<Answer>> window = windows.get(c);
                if (window.size() == WINDOW) {
                    assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(window.poll())).errorCode(),
                            "past the logs' share the oldest batches go, and appends are taken");
                }
                window.add(flooders.get(c).send(WireClient.produce("flood", i % 110, ACKS_ONE, 30_000,
                        MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(megabyte)), (short) 9)));
            }
            for (ArrayDeque<CompletableFuture<Answer>> window : windows) {
                while (!window.isEmpty()) {
                    DemoBrokerTest.answer(window.poll());
                }
            }
        } finally {
            for (WireClient flooder : flooders) {
                flooder.close();
            }
        }
    }

    private static short produce(WireClient client, String topic, int partition, int records) throws Exception {
        return DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(client.send(WireClient.produce(topic, partition, ACKS_ONE, 30_000,
                records)))).errorCode();
    }

    /** An OffsetCommit of generation -1 (a simple group) of every partition of {@code topic}: the last partition's error. */
    private static Errors commit(WireClient client, String group, String topic, int partitions, String metadata) throws Exception {
        OffsetCommitRequestTopic committed = new OffsetCommitRequestTopic().setName(topic);
        for (int p = 0; p < partitions; p++) {
            committed.partitions().add(new OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(0)
                    .setCommittedMetadata(metadata));
        }
        OffsetCommitRequest request = new OffsetCommitRequest(new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(-1)
                .setMemberId("").setTopics(List.of(committed)), OFFSET_COMMIT_V8);
        OffsetCommitResponse response = (OffsetCommitResponse) DemoBrokerTest.answer(client.send(request)).response();
        return Errors.forCode(response.data().topics().get(0).partitions().get(partitions - 1).errorCode());
    }
}
