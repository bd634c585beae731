package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker end to end over its wire protocol, started in-process on a free port: acks against
 * timeouts, ISR changes, ordering, acks=0/1, unknown topics.
 */
@Tag("integration")
public class DemoBrokerTest {
    private static final short ACKS_ALL = -1;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    private WireClient start(BrokerConfig.Builder config) throws Exception {
        broker = brokers.start(config);
        return brokers.connect();
    }

    public static Answer answer(CompletableFuture<Answer> future) {
        Waits.soon().until(future::isDone);
        return future.join();
    }

    public static PartitionProduceResponse partitionResponse(Answer answer) {
        ProduceResponse response = (ProduceResponse) answer.response();
        return response.data().responses().iterator().next().partitionResponses().get(0);
    }

    @Test
    void healthyReplicasAnswerEveryAcksAllProduceWithNoneAndIncreasingOffsets() throws Exception {
        WireClient client = start(BrokerConfig.builder().topic("demo", 3).followers(2).replicaLag(2, 2));
        List<CompletableFuture<Answer>> sent = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            sent.add(client.send(WireClient.produce("demo", i % 3, ACKS_ALL, 30_000, 2)));
        }
        long[] nextOffset = new long[3];
        for (int i = 0; i < sent.size(); i++) {
            PartitionProduceResponse response = partitionResponse(answer(sent.get(i)));
            assertEquals(Errors.NONE.code(), response.errorCode(), "request " + i);
            assertEquals(nextOffset[i % 3], response.baseOffset(), "request " + i + " base offset");
            nextOffset[i % 3] += 2;
        }
        assertEquals(40, broker.replicaManager().partition("demo", 0).leaderEndOffset());
        assertEquals(List.of(0, 1, 2), broker.replicaManager().partition("demo", 0).isr());
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired());
    }

    @Test
    void aStalledIsrReplicaTimesOutAcksAllNoEarlierThanTheTimeoutWhileAcksOneSucceeds() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2));
        int timeoutMs = 300;
        Answer acksAll = answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, timeoutMs, 1)));
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), partitionResponse(acksAll).errorCode());
        assertTrue(acksAll.elapsedNanos() >= TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                "answered after " + acksAll.elapsedNanos() + " ns, before the " + timeoutMs + " ms timeout");

        Answer acksOne = answer(client.send(WireClient.produce("demo", 0, (short) 1, timeoutMs, 1)));
        assertEquals(Errors.NONE.code(), partitionResponse(acksOne).errorCode());
        assertEquals(1, partitionResponse(acksOne).baseOffset(), "the timed-out produce was still appended");
        assertEquals(1, broker.replicaManager().producePurgatoryMetrics().expired());
        assertEquals(List.of(0, 1, 2), broker.replicaManager().partition("demo", 0).isr(), "stalled for less than replica.lag.time.max.ms: still in the ISR");
    }

    @Test
    void parkedProducesCompleteWithNoneWhenTheStalledReplicaRecovers() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2));
        List<CompletableFuture<Answer>> parked = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            parked.add(client.send(WireClient.produce("demo", i % 3, ACKS_ALL, 60_000, 1)));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 5);
        assertTrue(parked.stream().noneMatch(CompletableFuture::isDone));

        broker.followers().resume(2);

        for (CompletableFuture<Answer> future : parked) {
            assertEquals(Errors.NONE.code(), partitionResponse(answer(future)).errorCode(), "completed by the follower, not the timeout");
        }
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired());
    }

    @Test
    void aProduceToSeveralPartitionsAtDifferentOffsetsCompletesWhenEachIsReplicated() throws Exception {
        WireClient client = start(BrokerConfig.builder().topic("demo", 3).followers(2).stallReplica(2));
        assertEquals(Errors.NONE.code(), partitionResponse(answer(client.send(WireClient.produce("demo", 0, (short) 1, 60_000, 5)))).errorCode());
        CompletableFuture<Answer> parked = client.send(WireClient.produce("demo", List.of(0, 1), ACKS_ALL, 60_000, 2));
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 1);

        broker.followers().resume(2);

        ProduceResponse response = (ProduceResponse) answer(parked).response();
        List<PartitionProduceResponse> results = response.data().responses().iterator().next().partitionResponses();
        assertEquals(List.of(0, 1), results.stream().map(PartitionProduceResponse::index).toList(), "in request order");
        assertEquals(List.of(5L, 0L), results.stream().map(PartitionProduceResponse::baseOffset).toList());
        assertTrue(results.stream().allMatch(r -> r.errorCode() == Errors.NONE.code()), "completed by the followers: " + results);
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired());
    }

    @Test
    void whenTheIsrShrinksParkedProducesCompleteWithTheRemainingReplicas() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2).replicaLagTimeMaxMs(200).minInsyncReplicas(2));
        CompletableFuture<Answer> parked = client.send(WireClient.produce("demo", 0, ACKS_ALL, 60_000, 1));

        assertEquals(Errors.NONE.code(), partitionResponse(answer(parked)).errorCode());
        assertEquals(List.of(0, 1), broker.replicaManager().partition("demo", 0).isr());

        broker.followers().resume(2);
        for (int partition = 0; partition < 3; partition++) {
            int p = partition;
            Waits.soon().until(() -> broker.replicaManager().partition("demo", p).isr().equals(List.of(0, 1, 2)));
        }
    }

    @Test
    void belowMinInsyncReplicasParkedProducesGetNotEnoughReplicasAfterAppendAndNewOnesNotEnoughReplicas() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2).replicaLagTimeMaxMs(200).minInsyncReplicas(3));
        CompletableFuture<Answer> parked = client.send(WireClient.produce("demo", 0, ACKS_ALL, 60_000, 1));
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code(), partitionResponse(answer(parked)).errorCode());

        long endOffset = broker.replicaManager().partition("demo", 0).leaderEndOffset();
        Answer refused = answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 60_000, 1)));
        assertEquals(Errors.NOT_ENOUGH_REPLICAS.code(), partitionResponse(refused).errorCode());
        assertEquals(endOffset, broker.replicaManager().partition("demo", 0).leaderEndOffset(), "refused before append");

        Answer acksOne = answer(client.send(WireClient.produce("demo", 0, (short) 1, 60_000, 1)));
        assertEquals(Errors.NONE.code(), partitionResponse(acksOne).errorCode(), "acks=1 does not need the ISR");
    }

    @Test
    void responsesKeepRequestOrderOnAConnectionEvenWhenALaterRequestIsDoneFirst() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2));
        CompletableFuture<Answer> parked = client.send(WireClient.produce("demo", 0, ACKS_ALL, 500, 1));
        CompletableFuture<Answer> quick = client.send(WireClient.produce("demo", 1, (short) 1, 500, 1));

        assertEquals(Errors.NONE.code(), partitionResponse(answer(quick)).errorCode());
        assertTrue(parked.isDone(), "the earlier request's response came first");
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), partitionResponse(parked.join()).errorCode());
    }

    @Test
    void acksZeroGetsNoResponseButIsAppended() throws Exception {
        WireClient client = start(BrokerConfig.builder());
        client.send(WireClient.produce("demo", 0, (short) 0, 1_000, 3));
        Answer next = answer(client.send(WireClient.produce("demo", 0, (short) 1, 1_000, 1)));

        assertEquals(3, partitionResponse(next).baseOffset(), "the acks=0 records were appended first");
        // BrokerExtension checks after the test that no response came for the acks=0 request
    }

    @Test
    void unknownTopicsAndPartitionsGetTheirErrorCodes() throws Exception {
        WireClient client = start(BrokerConfig.builder().topic("demo", 3));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                partitionResponse(answer(client.send(WireClient.produce("nope", 0, ACKS_ALL, 1_000, 1)))).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                partitionResponse(answer(client.send(WireClient.produce("demo", 3, ACKS_ALL, 1_000, 1)))).errorCode());

        MetadataRequest request = new MetadataRequest.Builder(new MetadataRequestData().setAllowAutoTopicCreation(false) // else "nope" is made
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("nope"),
                        new MetadataRequestData.MetadataRequestTopic().setName("demo")))).build();
        MetadataResponse metadata = (MetadataResponse) answer(client.send(request)).response();
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, metadata.errors().get("nope"));
        assertEquals(3, metadata.topicMetadata().stream().filter(t -> t.topic().equals("demo")).findFirst().orElseThrow()
                .partitionMetadata().size());
    }

    @Test
    void aConnectionWithMaxInFlightRequestsIsNotReadUntilOneIsAnswered() throws Exception {
        WireClient client = start(BrokerConfig.builder().followers(2).stallReplica(2).maxInFlightPerConnection(4));
        List<CompletableFuture<Answer>> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sent.add(client.send(WireClient.produce("demo", 0, ACKS_ALL, 60_000, 1)));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 4);
        assertEquals(4, broker.replicaManager().partition("demo", 0).leaderEndOffset(), "requests past the fourth are still unread");

        broker.followers().resume(2);

        for (int i = 0; i < sent.size(); i++) {
            PartitionProduceResponse response = partitionResponse(answer(sent.get(i)));
            assertEquals(Errors.NONE.code(), response.errorCode());
            assertEquals(i, response.baseOffset());
        }
    }

    @Test
    void thousandsOfPipelinedRequestsAreAllAnsweredInOrder() throws Exception {
        WireClient client = start(BrokerConfig.builder().maxInFlightPerConnection(16));
        List<CompletableFuture<Answer>> sent = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            sent.add(client.send(WireClient.produce("demo", 0, (short) (i % 2 == 0 ? 1 : -1), 60_000, 1)));
        }
        for (int i = 0; i < sent.size(); i++) {
            PartitionProduceResponse response = partitionResponse(answer(sent.get(i)));
            assertEquals(Errors.NONE.code(), response.errorCode());
            assertEquals(i, response.baseOffset());
        }
    }
}
