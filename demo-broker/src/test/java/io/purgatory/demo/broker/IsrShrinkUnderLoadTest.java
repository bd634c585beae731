package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 8's hostile client, scaled to a 2-core machine: {@value #CONNECTIONS} connections, each
 * on its own thread, pipeline {@value #REQUESTS_PER_CONNECTION} {@code acks=-1} produces (timeout
 * 30 s, one record to each of the three partitions, so each produce watches three partitions at
 * three end offsets) right after follower 2 stalls, with {@code replicaLagTimeMaxMs} 2000 and
 * {@code min.insync.replicas} 2. The stalled follower holds every high watermark, so all the
 * produces park, until it leaves the ISR about 2 to 3 s after the stall (an ISR check runs every
 * second).
 *
 * <p>It shows that the healthy follower 1 keeps up under that load (one fetch in flight per
 * partition rather than a task per append, and no re-check of the parked produces while the high
 * watermark stands still): it never leaves the ISR, so when follower 2 leaves, the ISR {0, 1}
 * meets the minimum and every produce completes with {@code NONE} on every partition (none with
 * {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND}, none timed out) within 2 s of the shrink. Against the
 * follower model before issue 8 (a fetch task per append, each re-checking every parked produce of
 * its partition) it fails: the fetcher thread fell 4 s behind, follower 1 left the ISR with
 * follower 2, and every partition result was {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND}.
 *
 * <p>The produces must all be parked before the shrink for the test to show this; a machine too
 * slow to take {@value #CONNECTIONS} x {@value #REQUESTS_PER_CONNECTION} requests in 2 s fails it
 * with a message that says so. A first round of requests with both followers healthy warms the
 * broker and the connections up.
 */
@Tag("integration")
@Tag("stress")
class IsrShrinkUnderLoadTest {
    private static final int CONNECTIONS = 20;
    private static final int REQUESTS_PER_CONNECTION = 500;
    private static final int WARM_UP_PER_CONNECTION = 25;
    private static final int PARTITIONS = 3;
    private static final List<Integer> ALL_PARTITIONS = List.of(0, 1, 2);
    private static final int TIMEOUT_MS = 30_000;
    private static final short ACKS_ALL = -1;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;
    private final ExecutorService senders = Executors.newFixedThreadPool(CONNECTIONS);

    @AfterEach
    void tearDown() {
        senders.shutdownNow();
    }

    @Test
    void parkedProducesCompleteWithNoneSoonAfterTheStalledFollowerLeavesTheIsrAndTheHealthyOneStays() throws Exception {
        broker = brokers.start(BrokerConfig.builder().topic("demo", PARTITIONS).followers(2)
                .replicaLagTimeMaxMs(2_000).minInsyncReplicas(2));
        for (int c = 0; c < CONNECTIONS; c++) {
            brokers.connect();
        }
        assertEquals(Map.of(Errors.NONE.name(), CONNECTIONS * WARM_UP_PER_CONNECTION * PARTITIONS),
                errorCounts(sendFromEveryConnection(WARM_UP_PER_CONNECTION)));

        broker.followers().stall(2);
        List<CompletableFuture<Answer>> sent = sendFromEveryConnection(REQUESTS_PER_CONNECTION);
        int total = CONNECTIONS * REQUESTS_PER_CONNECTION;
        Waits.soon()
                .failFast("the ISR shrank before every produce was parked: this machine took over 2 s for " + total + " requests",
                        () -> !broker.replicaManager().partition("demo", 0).isr().contains(2))
                .until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == total);

        Waits.soon().until(() -> allPartitionsHaveIsr(List.of(0, 1)));
        Awaitility.await("every produce answered within 2 s of the ISR shrink")
                .pollInterval(Duration.ofMillis(10))
                .atMost(Duration.ofSeconds(2))
                .until(() -> sent.stream().allMatch(CompletableFuture::isDone));

        assertEquals(Map.of(Errors.NONE.name(), total * PARTITIONS), errorCounts(sent));
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired());
        for (int p = 0; p < PARTITIONS; p++) {
            assertEquals(0, broker.replicaManager().partition("demo", p).timesLeftIsr(1), "follower 1 never left the ISR of demo-" + p);
            assertEquals(1, broker.replicaManager().partition("demo", p).timesLeftIsr(2), "follower 2 left the ISR of demo-" + p + " once");
            assertEquals(List.of(0, 1), broker.replicaManager().partition("demo", p).isr());
        }
    }

    /** Sends {@code perConnection} acks=-1 produces to every partition on every connection at once, one thread each. */
    private List<CompletableFuture<Answer>> sendFromEveryConnection(int perConnection) throws Exception {
        List<CompletableFuture<Answer>> sent = Collections.synchronizedList(new ArrayList<>(CONNECTIONS * perConnection));
        List<Future<?>> sending = new ArrayList<>(CONNECTIONS);
        for (int c = 0; c < CONNECTIONS; c++) {
            WireClient client = brokers.clients().get(c);
            sending.add(senders.submit(() -> {
                for (int i = 0; i < perConnection; i++) {
                    sent.add(client.send(WireClient.produce("demo", ALL_PARTITIONS, ACKS_ALL, TIMEOUT_MS, 1)));
                }
                return null;
            }));
        }
        for (Future<?> future : sending) {
            future.get();
        }
        return sent;
    }

    /** Waits for every response, then counts their partition results by error name. */
    private static Map<String, Integer> errorCounts(List<CompletableFuture<Answer>> sent) {
        Waits.soon().until(() -> sent.stream().allMatch(CompletableFuture::isDone));
        Map<String, Integer> counts = new TreeMap<>();
        for (CompletableFuture<Answer> future : sent) {
            ProduceResponse response = (ProduceResponse) future.join().response();
            for (TopicProduceResponse topic : response.data().responses()) {
                for (PartitionProduceResponse partition : topic.partitionResponses()) {
                    counts.merge(Errors.forCode(partition.errorCode()).name(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    private boolean allPartitionsHaveIsr(List<Integer> isr) {
        for (int p = 0; p < PARTITIONS; p++) {
            if (!broker.replicaManager().partition("demo", p).isr().equals(isr)) {
                return false;
            }
        }
        return true;
    }
}
