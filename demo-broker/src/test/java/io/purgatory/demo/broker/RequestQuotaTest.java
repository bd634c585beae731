package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.BrokerSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fairness by cost over real sockets: a connection that uses more than its share of the handlers' time
 * gets {@code throttle_time_ms} in its response and is not served again until then, while a light
 * connection beside it is not throttled; and the all-topics Metadata answer, shared between changes,
 * shows an ISR change.
 */
@Tag("integration")
class RequestQuotaTest {
    private static final int WINDOW_MS = 10_000;
    private static final int IDLE_CLIENTS = 100;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.followers(0).minInsyncReplicas(1).topic("big", 5_000).requestHandlers(1)
            .set(BrokerSettings.REQUEST_QUOTA_WINDOW_MS, WINDOW_MS));

    @Test
    void aConnectionPastItsShareIsThrottledAndMutedWhileALightOneIsServed() throws Exception {
        // a hundred clients that each used the handler once: the share is a window over 101 or 102 clients, about 100 ms
        List<WireClient> idle = new ArrayList<>();
        for (int i = 0; i < IDLE_CLIENTS; i++) {
            WireClient client = brokers.connect();
            idle.add(client);
            assertEquals(0, DemoBrokerTest.answer(client.send(new ApiVersionsRequest.Builder().build())).response().throttleTimeMs());
        }
        WireClient heavy = brokers.connect();
        MetadataRequest fiveThousandPartitions = new MetadataRequest.Builder(new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestTopic().setName("big")))).build((short) 12);
        long throttleMs = 0;
        long sentNanos = 0;
        for (int i = 0; i < 100_000 && throttleMs == 0; i++) {
            sentNanos = System.nanoTime();
            MetadataResponse answer = (MetadataResponse) DemoBrokerTest.answer(heavy.send(fiveThousandPartitions)).response();
            assertEquals(5_000, answer.data().topics().find("big").partitions().size());
            throttleMs = answer.throttleTimeMs();
        }
        assertTrue(throttleMs > 0 && throttleMs <= WINDOW_MS, "throttled at most one window: " + throttleMs + " ms");

        AbstractResponse light = DemoBrokerTest.answer(idle.get(0).send(new ApiVersionsRequest.Builder().build())).response();
        assertEquals(0, light.throttleTimeMs(), "a light connection beside it is not throttled");
        assertEquals(Errors.NONE, light.errorCounts().keySet().iterator().next());

        Answer next = DemoBrokerTest.answer(heavy.send(new ApiVersionsRequest.Builder().build()));
        long sinceThrottledRequestMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);
        assertTrue(sinceThrottledRequestMs >= throttleMs - 1, // the throttle is rounded up to whole milliseconds
                "the throttled connection's next request is handled once the throttle has passed: " + sinceThrottledRequestMs
                        + " ms after the throttled request was sent, throttled " + throttleMs + " ms");
        assertTrue(next.response().throttleTimeMs() <= WINDOW_MS);
        assertTrue(heavy.protocolErrors().isEmpty(), heavy.protocolErrors().toString());
    }

    @Test
    void theSharedAllTopicsAnswerShowsAnIsrChange() throws Exception {
        brokers.start(BrokerConfig.builder().followers(1).stallReplica(1).replicaLagTimeMaxMs(200).topic("isr", 1));
        WireClient client = brokers.connect();
        assertEquals(List.of(0, 1), isr(client), "both replicas in sync while nothing was produced");
        assertEquals(List.of(0, 1), isr(client), "answered again from the shared description");
        Answer produced = DemoBrokerTest.answer(client.send(WireClient.produce("isr", 0, (short) 1, 30_000, 1)));
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(produced).errorCode());
        // the stalled follower falls behind and leaves the ISR after 200 ms: an answer after that says so
        Waits.soon().until(() -> isr(client).equals(List.of(0)));
    }

    /** The ISR of partition 0 of topic {@code isr}, from a Metadata answer for all topics. */
    private static List<Integer> isr(WireClient client) throws Exception {
        MetadataResponse answer = (MetadataResponse) DemoBrokerTest.answer(client.send(MetadataRequest.Builder.allTopics().build((short) 12)))
                .response();
        MetadataResponseTopic topic = answer.data().topics().find("isr");
        return topic.partitions().get(0).isrNodes();
    }
}
