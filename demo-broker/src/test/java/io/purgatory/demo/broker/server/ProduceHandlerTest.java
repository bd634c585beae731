package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.List;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ProduceHandler} alone, on a replica manager whose follower 2 never fetches: what a client
 * gets back for each acks mode, a bad or unknown topic and a repeated partition, and that a parked
 * produce is handed to the responder to complete if its connection closes.
 */
class ProduceHandlerTest {
    private static final short ACKS_ALL = -1;
    private static final short ACKS_LEADER = 1;
    private static final short ACKS_NONE = 0;

    private final ReplicaManager replicaManager = new ReplicaManager(BrokerConfig.builder().port(0).topic("orders", 2)
            .followers(2).stallReplica(2).build());
    private final ProduceHandler handler = new ProduceHandler(replicaManager);

    @AfterEach
    void close() {
        replicaManager.close();
    }

    @Test
    void acksOneIsAnsweredAtOnceWithEachAppendsOffset() {
        assertEquals(List.of(Errors.NONE, 0L), answer(produce("orders", 1, ACKS_LEADER, 3)));
        assertEquals(List.of(Errors.NONE, 3L), answer(produce("orders", 1, ACKS_LEADER, 2)), "the next batch starts after the first");
        assertEquals(5, replicaManager.partition("orders", 1).leaderEndOffset());
    }

    @Test
    void acksZeroGetsNoResponseAndIsStillAppended() {
        RecordingResponder responder = handle(produce("orders", 0, ACKS_NONE, 4));
        assertTrue(responder.noResponse);
        assertEquals(1, responder.answers());
        assertEquals(4, replicaManager.partition("orders", 0).leaderEndOffset());
    }

    @Test
    void anUnknownTopicAndABadNameAreRefusedPerPartitionAndNothingIsAppended() {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, answer(produce("missing", 0, ACKS_LEADER, 1)).get(0));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, answer(produce("bad name", 0, ACKS_LEADER, 1)).get(0));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, answer(produce("orders", 7, ACKS_LEADER, 1)).get(0), "no partition 7");
        assertEquals(0, replicaManager.partition("orders", 0).leaderEndOffset());
    }

    @Test
    void aPartitionListedTwiceIsAppendedAndAnsweredOnce() {
        RecordingResponder responder = handle(WireClient.produce("orders", List.of(0, 0), ACKS_LEADER, 1_000, 2));
        List<PartitionProduceResponse> partitions = ((ProduceResponse) responder.sent.get(0)).data().responses().iterator().next()
                .partitionResponses();
        assertEquals(1, partitions.size(), partitions.toString());
        assertEquals(2, replicaManager.partition("orders", 0).leaderEndOffset());
    }

    @Test
    void aParkedProduceIsAnsweredOnceWhenItsConnectionGoesAway() {
        RecordingResponder responder = handle(produce("orders", 0, ACKS_ALL, 1));
        assertEquals(0, responder.answers(), () -> "replica 2 is stalled: the produce waits, but " + responder.sent);
        assertEquals(1, replicaManager.producePurgatoryMetrics().delayed());
        assertEquals(1, responder.awaited.size());

        responder.awaited.get(0).run(); // what the network layer does when the connection closes

        assertEquals(0, replicaManager.producePurgatoryMetrics().delayed(), "it left the purgatory at once");
        assertEquals(1, responder.answers());
        assertEquals(Errors.REQUEST_TIMED_OUT, partition(responder).get(0), "its answer goes nowhere; it says what was not reached");
    }

    private static org.apache.kafka.common.requests.ProduceRequest produce(String topic, int partition, short acks, int records) {
        return WireClient.produce(topic, partition, acks, 60_000, records);
    }

    private RecordingResponder handle(org.apache.kafka.common.requests.ProduceRequest request) {
        RecordingResponder responder = new RecordingResponder();
        handler.handle(request, responder);
        return responder;
    }

    /** The one partition's error and base offset in the answer to {@code request}, which must be answered at once. */
    private List<Object> answer(org.apache.kafka.common.requests.ProduceRequest request) {
        RecordingResponder responder = handle(request);
        assertEquals(1, responder.sent.size(), () -> "answered at once: " + responder.failures);
        return partition(responder);
    }

    private static List<Object> partition(RecordingResponder responder) {
        PartitionProduceResponse partition = ((ProduceResponse) responder.sent.get(0)).data().responses().iterator().next()
                .partitionResponses().get(0);
        return List.of(Errors.forCode(partition.errorCode()), partition.baseOffset());
    }
}
