package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaApis} alone, without a socket: each request reaches its handler and is answered
 * exactly once, and a request it cannot handle is failed rather than left unanswered.
 */
class KafkaApisTest {
    private final BrokerConfig config = BrokerConfig.builder().port(0).topic("orders", 2).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final BrokerStats stats = new BrokerStats();
    private final KafkaApis apis = new KafkaApis(replicaManager, coordinator, stats);

    @AfterEach
    void close() {
        coordinator.close();
        replicaManager.close();
    }

    @Test
    void apiVersionsListsEverySupportedApi() {
        RecordingResponder responder = handle(ApiKeys.API_VERSIONS, new ApiVersionsRequest.Builder().build());
        ApiVersionsResponse response = (ApiVersionsResponse) responder.sent.get(0);
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        assertEquals(KafkaApis.SUPPORTED.stream().map(api -> api.id).collect(Collectors.toSet()),
                response.data().apiKeys().stream().map(key -> key.apiKey()).collect(Collectors.toSet()));
        assertEquals(24, KafkaApis.SUPPORTED.size(), "CHANGELOG.md counts them");
    }

    @Test
    void metadataDescribesTheTopicWithThisBrokerAsEveryLeader() {
        RecordingResponder responder = handle(ApiKeys.METADATA, new MetadataRequest.Builder(List.of("orders"), false).build());
        MetadataResponse response = (MetadataResponse) responder.sent.get(0);
        MetadataResponseTopic topic = response.data().topics().find("orders");
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals(2, topic.partitions().size());
        topic.partitions().forEach(p -> assertEquals(0, p.leaderId(), p.toString()));
        assertEquals(Set.of("broker.example:19092"), response.data().brokers().stream()
                .map(b -> b.host() + ":" + b.port()).collect(Collectors.toSet()), "the advertised address");
    }

    @Test
    void aProduceReachesTheProduceHandler() {
        RecordingResponder responder = handle(ApiKeys.PRODUCE, WireClient.produce("orders", 1, (short) 1, 1_000, 2));
        ProduceResponse response = (ProduceResponse) responder.sent.get(0);
        assertEquals(Errors.NONE.code(), response.data().responses().iterator().next().partitionResponses().get(0).errorCode());
        assertEquals(2, replicaManager.partition("orders", 1).leaderEndOffset());
    }

    @Test
    void aRequestItCannotHandleIsFailedNotDropped() {
        // a header that does not match its body: the dispatcher's cast fails
        RecordingResponder responder = handle(ApiKeys.FETCH, new ApiVersionsRequest.Builder().build());
        assertEquals(1, responder.answers());
        assertEquals(1, responder.failures.size());
        assertTrue(responder.failures.get(0) instanceof ClassCastException, responder.failures.toString());
    }

    private RecordingResponder handle(ApiKeys api, AbstractRequest request) {
        RecordingResponder responder = new RecordingResponder();
        apis.handle(new RequestHeader(api, request.version(), "test-client", 7), request, "broker.example", 19092, "/127.0.0.1",
                responder);
        assertEquals(1, responder.answers(), () -> api + " answered once: " + responder.sent + responder.failures);
        return responder;
    }
}
