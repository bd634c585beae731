package io.purgatory.demo.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.purgatory.LatencyHistogram;
import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.DemoBrokerTest;
import io.purgatory.demo.broker.FetchTest;
import io.purgatory.demo.broker.Waits;
import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.WireClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.awaitility.Awaitility;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard's HTTP endpoint over real sockets: pages, {@code /metrics} (fetch outcomes included,
 * driven by a long-polling consumer), the event stream and {@code /api/state}, the replica controls, and what it answers
 * to bad input; and that HTTP clients which send nothing,
 * or stop reading, do not delay the Kafka listener.
 */
@Tag("integration")
class DashboardHttpTest {
    private static final short ACKS_ALL = -1;
    private static final short ACKS_LEADER = 1;
    /** The last Fetch version that names topics, as {@link FetchTest#fetch} does. */
    private static final short FETCH_BY_NAME = 12;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic("demo", 2).followers(2).replicaLag(1, 1));
    private DemoBroker broker;
    private DashboardServer dashboard;

    @BeforeEach
    void start() throws Exception {
        broker = brokers.get();
        dashboard = DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(), "127.0.0.1", 0);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        dashboard.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create(dashboard.url()).resolve(path);
    }

    @Test
    void servesThePageItsScriptAndStyles() throws Exception {
        HttpResponse<String> page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElseThrow().startsWith("text/html"));
        assertTrue(page.body().contains("<script src=\"dashboard.js\""), page.body());
        assertTrue(page.headers().firstValue("Content-Security-Policy").orElseThrow().contains("default-src 'self'"));
        assertEquals(200, get("/dashboard.js").statusCode());
        assertEquals(200, get("/dashboard.css").statusCode());
    }

    @Test
    void unknownPathsAre404() throws Exception {
        HttpResponse<String> response = get("/no/such/page");
        assertEquals(404, response.statusCode());
        assertEquals("no such page: /no/such/page\n", response.body());
    }

    @Test
    void aMethodAPathDoesNotTakeIs405WithAllow() throws Exception {
        HttpResponse<String> postMetrics = post("/metrics", "");
        assertEquals(405, postMetrics.statusCode());
        assertEquals("GET", postMetrics.headers().firstValue("Allow").orElseThrow());
        HttpResponse<String> getStall = get("/api/replicas/2/stall");
        assertEquals(405, getStall.statusCode());
        assertEquals("POST", getStall.headers().firstValue("Allow").orElseThrow());
        assertEquals(false, broker.followers().isStalled(2));
    }

    @Test
    void stallAndResumeAFollowerOverHttp() throws Exception {
        HttpResponse<String> stalled = post("/api/replicas/2/stall", "");
        assertEquals(200, stalled.statusCode(), stalled.body());
        assertReplica(2, true, 1, stalled);
        assertTrue(broker.followers().isStalled(2));
        HttpResponse<String> resumed = post("/api/replicas/2/resume", "");
        assertEquals(200, resumed.statusCode(), resumed.body());
        assertReplica(2, false, 1, resumed);
        assertEquals(false, broker.followers().isStalled(2));
    }

    @Test
    void setAFollowersLagOverHttp() throws Exception {
        HttpResponse<String> response = post("/api/replicas/1/lag", "lagMs=250");
        assertEquals(200, response.statusCode(), response.body());
        assertReplica(1, false, 250, response);
        assertEquals(250, broker.followers().lagMs(1));
        assertEquals(1, broker.followers().lagMs(2));
    }

    /** The replica controls answer the replica's state as JSON. */
    private static void assertReplica(int id, boolean stalled, long lagMs, HttpResponse<String> response) throws Exception {
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
        JsonNode replica = JSON.readTree(response.body());
        assertEquals(id, replica.get("id").asInt(), response.body());
        assertEquals(stalled, replica.get("stalled").asBoolean(), response.body());
        assertEquals(lagMs, replica.get("lagMs").asLong(), response.body());
    }

    @Test
    void aLagSetOverHttpDelaysTheFollowersFetches() throws Exception {
        assertEquals(200, post("/api/replicas/2/lag", "lagMs=300").statusCode());
        WireClient client = brokers.connect();
        Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 30_000, 1)));
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
        // replica 2 fetches 300 ± 1 ms after the append, so the ack cannot come sooner
        assertTrue(answer.elapsedNanos() >= Duration.ofMillis(299).toNanos(), "acked after " + answer.elapsedNanos() + " ns");
    }

    @Test
    void aReplicaThatDoesNotExistIs404() throws Exception {
        HttpResponse<String> tooHigh = post("/api/replicas/3/stall", "");
        assertEquals(404, tooHigh.statusCode());
        assertEquals("no follower replica 3: followers are 1..2\n", tooHigh.body());
        assertEquals(404, post("/api/replicas/0/resume", "").statusCode(), "the leader is not a follower");
        HttpResponse<String> notANumber = post("/api/replicas/two/stall", "");
        assertEquals(404, notANumber.statusCode());
        assertEquals("no follower replica 'two': followers are 1..2\n", notANumber.body());
    }

    @Test
    void aLagThatIsNotAWholeNumberOfMillisecondsIs400() throws Exception {
        for (String body : List.of("", "lagMs=", "lagMs=fast", "lagMs=-1", "lagMs=60001", "lagMs=5&jitterMs=1", "{\"lagMs\":5}")) {
            HttpResponse<String> response = post("/api/replicas/1/lag", body);
            assertEquals(400, response.statusCode(), body);
            assertEquals("expected the form body lagMs=MS with MS a whole number in 0..60000\n", response.body(), body);
        }
        assertEquals(1, broker.followers().lagMs(1));
    }

    @Test
    void aCrossSitePostIs403() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/api/replicas/2/stall"))
                .header("Origin", "http://evil.example").POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, response.statusCode());
        assertEquals(false, broker.followers().isStalled(2));
    }

    @Test
    void aRequestThatIsNotHttpIs400AndClosed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", dashboard.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /\u0000 HTTP/9.9 nonsense\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            assertEquals("HTTP/1.1 400 Bad Request", in.readLine());
            String line;
            do {
                line = in.readLine();
            } while (line != null && !line.isEmpty());
            assertEquals("malformed HTTP request", in.readLine());
            assertEquals(null, in.readLine(), "then the connection closes");
        }
    }

    @Test
    void aBodyAboveTheLimitIs413() throws Exception {
        HttpResponse<String> response = post("/api/replicas/1/lag", "lagMs=" + "1".repeat(20_000));
        assertEquals(413, response.statusCode());
    }

    @Test
    void metricsAreValidPrometheusTextWithTheBrokersCounters() throws Exception {
        WireClient client = brokers.connect();
        List<CompletableFuture<Answer>> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            sent.add(client.send(WireClient.produce("demo", i % 2, ACKS_ALL, 30_000, 1)));
        }
        sent.forEach(answer -> Waits.soon().until(answer::isDone));
        Exposition metrics = metrics();
        Set<String> documentedWithoutGroups = new TreeSet<>(DocumentedMetrics.families());
        documentedWithoutGroups.removeIf(name -> name.startsWith("kafka_consumergroup_"));
        assertEquals(documentedWithoutGroups, new TreeSet<>(metrics.families().keySet()),
                "docs/demo.md's metric table against /metrics (no group yet: no kafka_consumergroup_ series)");
        for (Exposition.Family family : metrics.families().values()) {
            assertTrue(List.of("counter", "gauge", "summary").contains(family.type()), family.toString());
            assertTrue(family.help() != null && family.help().split(" ").length >= 5, "a help text that says what it is: " + family);
        }
        assertEquals(10, metrics.value("demo_broker_requests_total", "api", "Produce"));
        assertEquals(10, metrics.value("demo_broker_response_codes_total", "api", "Produce", "code", "NONE"));
        assertEquals(10, metrics.value("purgatory_operations_completed_total", "purgatory", "produce"));
        assertEquals(1, metrics.value("demo_broker_connections"));
        assertTrue(metrics.value("demo_broker_received_bytes_total") > 0);
        assertTrue(metrics.value("demo_broker_sent_bytes_total") > 0);
        assertEquals(5, metrics.value("demo_broker_log_end_offset", "topic", "demo", "partition", "0", "replica", "0"));
        assertEquals(0, metrics.value("purgatory_expiry_lateness_percentile_seconds", "purgatory", "produce", "phi", "0.99"));
        assertEquals(0, metrics.value("purgatory_expiry_lateness_seconds_count", "purgatory", "produce"));
        assertEquals(0, metrics.value("purgatory_expiry_lateness_seconds_sum", "purgatory", "produce"));
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(sent.get(0).join()).errorCode());
    }

    @Test
    void timeoutsShowAsResponseCodesAndInTheLatenessSummarysCountAndSum() throws Exception {
        broker.followers().stall(2);
        WireClient client = brokers.connect();
        for (int i = 0; i < 5; i++) {
            Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 20, 1)));
            assertEquals(Errors.REQUEST_TIMED_OUT.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
        }
        Exposition metrics = metrics();
        assertEquals(5, metrics.value("demo_broker_response_codes_total", "api", "Produce", "code", "REQUEST_TIMED_OUT"));
        assertEquals(List.of("REQUEST_TIMED_OUT"), metrics.family("demo_broker_response_codes_total").samples().stream()
                .filter(sample -> sample.labels().get("api").equals("Produce")).map(sample -> sample.labels().get("code")).toList(),
                "no success was counted");
        assertEquals(5, metrics.value("purgatory_operations_expired_total", "purgatory", "produce"));
        assertEquals(5, metrics.value("purgatory_expiry_lateness_seconds_count", "purgatory", "produce"));
        // the summary's sum is the purgatory histogram's, in seconds: a scraper can compute the mean lateness from it
        LatencyHistogram lateness = broker.replicaManager().producePurgatoryMetrics().expiryLateness();
        double sum = metrics.value("purgatory_expiry_lateness_seconds_sum", "purgatory", "produce");
        assertEquals(lateness.sumMs() / 1000.0, sum);
        assertTrue(sum <= 5 * metrics.value("purgatory_expiry_lateness_max_seconds", "purgatory", "produce"), metrics.family(
                "purgatory_expiry_lateness_seconds").toString());
        assertEquals(0, metrics.value("purgatory_expiry_lateness_seconds_count", "purgatory", "fetch"));
    }

    /** {@code GET /metrics}, parsed. */
    private Exposition metrics() throws Exception {
        HttpResponse<String> response = get("/metrics");
        assertEquals(200, response.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", response.headers().firstValue("Content-Type").orElseThrow());
        return Exposition.parse(response.body());
    }

    @Test
    void fetchResponsesAreCountedByOutcomeInMetricsAndState() throws Exception {
        assertEquals(fetchResponses(0, 0, 0, 0), fetchResponses(), "all four outcomes, from the start");
        WireClient consumer = brokers.connect();
        WireClient producer = brokers.connect();
        // a long poll parks until a produce commits a record, then answers with it
        CompletableFuture<Answer> poll = fetch(consumer, 30_000, 0);
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
        assertEquals(fetchResponses(0, 0, 0, 0), fetchResponses(), "a parked fetch is not answered yet");
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(
                producer.send(WireClient.produce("demo", 0, ACKS_ALL, 30_000, 1)))).errorCode());
        assertTrue(fetchedPartition(poll).records().sizeInBytes() > 0);
        assertEquals(fetchResponses(1, 0, 0, 0), fetchResponses());

        // past the end, nothing more comes: a long poll of 50 ms expires empty; one of 0 ms is empty at once
        assertEquals(0, fetchedPartition(fetch(consumer, 50, 1)).records().sizeInBytes());
        assertEquals(0, fetchedPartition(fetch(consumer, 0, 1)).records().sizeInBytes());
        // an offset past the log end is an error
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), fetchedPartition(fetch(consumer, 30_000, 99)).errorCode());
        assertEquals(fetchResponses(1, 1, 1, 1), fetchResponses());

        // the state is sampled once a second: wait for a sample taken after the fetches
        JsonNode fetch = Waits.soon().pollInterval(Duration.ofMillis(50)).until(() -> state().get("fetch"),
                f -> f.get("errorTotal").asLong() == 1);
        for (String outcome : List.of("data", "emptyMaxWait", "emptyAtOnce", "error")) {
            assertEquals(1, fetch.get(outcome + "Total").asLong(), fetch.toString());
            assertTrue(fetch.get(outcome + "PerSec").isNumber(), fetch.toString());
        }
    }

    @Test
    void theStateHoldsTheProduceOutcomesPurgatoriesReplicasAndPartitions() throws Exception {
        WireClient client = brokers.connect();
        for (int i = 0; i < 3; i++) {
            Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 1, ACKS_ALL, 30_000, 1)));
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
        }
        JsonNode state = Waits.soon().pollInterval(Duration.ofMillis(50)).until(this::state,
                s -> s.get("produce").get("ackedTotal").asLong() == 3);
        JsonNode produce = state.get("produce");
        assertEquals(0, produce.get("timedOutTotal").asLong());
        assertEquals(0, produce.get("otherErrorsTotal").asLong());
        assertTrue(produce.get("ackedPerSec").asDouble() > 0, produce.toString());
        assertTrue(state.get("timeMs").asLong() > 0);

        JsonNode purgatory = state.get("purgatories").get(0);
        assertEquals(List.of("produce", "fetch", "delete-records", "rebalance", "heartbeat"), names(state.get("purgatories")));
        assertEquals(3, purgatory.get("completed").asLong(), purgatory.toString());
        assertEquals(0, purgatory.get("delayed").asLong(), purgatory.toString());
        assertEquals(0, purgatory.get("expiryLateness").get("count").asLong(), purgatory.toString());

        JsonNode partition = state.get("partitions").get(1);
        assertEquals("demo", partition.get("topic").asText());
        assertEquals(1, partition.get("partition").asInt());
        assertEquals(3, partition.get("leaderEndOffset").asLong(), partition.toString());
        assertEquals(3, partition.get("highWatermark").asLong(), partition.toString());
        assertEquals(List.of(0, 1, 2), JSON.convertValue(partition.get("isr"), List.class));
        assertEquals(2, partition.get("followerEndOffsets").size());
        assertEquals(2, state.get("partitions").size());

        assertEquals(2, state.get("replicas").size());
        assertEquals(1, state.get("connections").asLong());
        assertTrue(state.get("bytesIn").asLong() > 0);
        assertTrue(state.get("bytesOut").asLong() > 0);
    }

    @Test
    void groupsShowInTheStateAndInMetricsWithKafkaExportersLag() throws Exception {
        try (WireClient client = new WireClient(broker.port())) {
            for (int i = 0; i < 5; i++) {
                DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 30_000, 1)));
            }
        }
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "watched");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("demo"));
            Waits.soon().until(() -> {
                consumer.poll(Duration.ofMillis(50));
                return consumer.assignment().size() == 2;
            });
            consumer.commitSync(Map.of(new TopicPartition("demo", 0), new OffsetAndMetadata(2)));

            JsonNode group = Waits.soon().pollInterval(Duration.ofMillis(50)).until(this::state, // sampled once a second
                    st -> st.get("groups").size() == 1 && st.get("groups").get(0).get("offsets").size() == 1).get("groups").get(0);
            assertEquals("g", group.get("groupId").asText());
            assertEquals("Stable", group.get("state").asText());
            assertEquals("range", group.get("protocol").asText());
            JsonNode member = group.get("members").get(0);
            assertEquals("watched", member.get("clientId").asText());
            assertEquals("/127.0.0.1", member.get("host").asText());
            assertEquals(List.of("demo-0", "demo-1"), JSON.convertValue(member.get("assignment"), List.class));
            assertTrue(member.get("sinceHeartbeatMs").asLong() <= member.get("sessionTimeoutMs").asLong(), member.toString());
            JsonNode offset = group.get("offsets").get(0);
            assertEquals(List.of("demo", 0, 2, 5, 3), List.of(offset.get("topic").asText(), offset.get("partition").asInt(),
                    offset.get("committed").asInt(), offset.get("highWatermark").asInt(), offset.get("lag").asInt()));

            Exposition metrics = metrics();
            assertEquals(3, metrics.value("kafka_consumergroup_lag", "consumergroup", "g", "topic", "demo", "partition", "0"));
            assertEquals(2, metrics.value("kafka_consumergroup_current_offset", "consumergroup", "g", "topic", "demo", "partition", "0"));
            assertEquals(1, metrics.value("kafka_consumergroup_members", "consumergroup", "g"));
            assertEquals(1, metrics.value("demo_broker_groups", "state", "Stable"));
            assertEquals(0, metrics.value("demo_broker_groups", "state", "Empty"));
            assertTrue(metrics.value("demo_broker_group_rebalances_total") >= 1);
            assertTrue(metrics.value("purgatory_operations_delayed", "purgatory", "heartbeat") >= 1, "the member's session is parked");
            assertEquals(DocumentedMetrics.families(), new TreeSet<>(metrics.families().keySet()),
                    "docs/demo.md's metric table against /metrics, every family present");
        }
    }

    private JsonNode state() throws Exception {
        HttpResponse<String> response = get("/api/state");
        assertEquals(200, response.statusCode());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
        return JSON.readTree(response.body());
    }

    private static List<String> names(JsonNode purgatories) {
        List<String> names = new ArrayList<>();
        purgatories.forEach(p -> names.add(p.get("name").asText()));
        return names;
    }

    /** {@code demo_broker_fetch_responses_total} now, by outcome. */
    private Map<String, Double> fetchResponses() throws Exception {
        Map<String, Double> byOutcome = new TreeMap<>();
        metrics().family("demo_broker_fetch_responses_total").samples()
                .forEach(sample -> byOutcome.put(sample.labels().get("outcome"), sample.value()));
        return byOutcome;
    }

    private static Map<String, Double> fetchResponses(int data, int emptyMaxWait, int emptyAtOnce, int error) {
        return new TreeMap<>(Map.of("data", (double) data, "empty_max_wait", (double) emptyMaxWait, "empty_at_once", (double) emptyAtOnce,
                "error", (double) error));
    }

    /** A fetch of partition 0 of demo from {@code offset}, {@code min.bytes} 1. */
    private static CompletableFuture<Answer> fetch(WireClient client, int maxWaitMs, long offset) throws IOException {
        return client.send(new FetchRequest(FetchTest.fetch(maxWaitMs, 1, offset), FETCH_BY_NAME));
    }

    /** The one partition of a fetch response without a top-level error. */
    private static PartitionData fetchedPartition(CompletableFuture<Answer> answer) {
        FetchResponse response = (FetchResponse) DemoBrokerTest.answer(answer).response();
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        return response.data().responses().get(0).partitions().get(0);
    }

    @Test
    void theEventStreamSendsTheHistoryThenASampleEachSecond() throws Exception {
        HttpResponse<java.util.stream.Stream<String>> response = http.send(
                HttpRequest.newBuilder(uri("/events")).build(), HttpResponse.BodyHandlers.ofLines());
        closeables.add(() -> response.body().close());
        assertEquals(200, response.statusCode());
        assertEquals("text/event-stream; charset=utf-8", response.headers().firstValue("Content-Type").orElseThrow());
        CompletableFuture<List<String>> firstEvents = CompletableFuture.supplyAsync(() ->
                response.body().filter(line -> line.startsWith("event: ") || line.startsWith("data: ")).limit(4)
                        .collect(Collectors.toList()));
        Waits.soon().until(firstEvents::isDone);
        List<String> lines = firstEvents.join();
        assertEquals("event: history", lines.get(0));
        JsonNode history = JSON.readTree(lines.get(1).substring("data: ".length()));
        assertTrue(history.isArray() && history.size() >= 1, lines.get(1));
        assertEquals("event: sample", lines.get(2));
        JsonNode sample = JSON.readTree(lines.get(3).substring("data: ".length()));
        assertTrue(sample.get("timeMs").asLong() >= history.get(history.size() - 1).get("timeMs").asLong(), lines.get(3));
        for (int id = 1; id <= 2; id++) {
            JsonNode replica = sample.get("replicas").get(id - 1);
            assertEquals(id, replica.get("id").asInt(), lines.get(3));
            assertEquals(false, replica.get("stalled").asBoolean(), lines.get(3));
            assertEquals(1, replica.get("lagMs").asLong(), lines.get(3));
        }
    }

    @Test
    void thePartitionTableAndMetricsFollowCreatesDeletesConfigChangesAndDeleteRecords() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port()))) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 2))).all().get();
            JsonNode created = Waits.soon().pollInterval(Duration.ofMillis(50)).until(this::state, s -> s.get("partitions").size() == 4);
            assertEquals(List.of("demo-0", "demo-1", "orders-0", "orders-1"), partitionNames(created));
            assertEquals(1, created.get("partitions").get(3).get("followerEndOffsets").size(), "replication factor 2: one follower");

            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "orders"), List.of(new AlterConfigOp(
                    new ConfigEntry("min.insync.replicas", "1"), AlterConfigOp.OpType.SET)))).all().get();
            try (WireClient client = new WireClient(broker.port())) {
                DemoBrokerTest.answer(client.send(WireClient.produce("orders", 0, ACKS_ALL, 30_000, 5)));
            }
            admin.deleteRecords(Map.of(new TopicPartition("orders", 0), RecordsToDelete.beforeOffset(3))).all().get();
            JsonNode changed = Waits.soon().pollInterval(Duration.ofMillis(50)).until(this::state,
                    s -> s.get("partitions").get(2).get("lowWatermark").asLong() == 3);
            JsonNode orders0 = changed.get("partitions").get(2);
            assertEquals(1, orders0.get("minInsyncReplicas").asInt(), orders0.toString());
            assertEquals(3, orders0.get("logStartOffset").asLong(), orders0.toString());
            Exposition exposition = metrics();
            assertEquals(3.0, gauge(exposition, "demo_broker_low_watermark", "orders", "0"));
            assertEquals(1.0, gauge(exposition, "demo_broker_min_insync_replicas", "orders", "0"));
            assertTrue(exposition.family("purgatory_operations_delayed").samples().stream()
                    .anyMatch(sample -> "delete-records".equals(sample.labels().get("purgatory"))), "the delete-records purgatory in /metrics");

            admin.deleteTopics(List.of("orders")).all().get();
            JsonNode deleted = Waits.soon().pollInterval(Duration.ofMillis(50)).until(this::state, s -> s.get("partitions").size() == 2);
            assertEquals(List.of("demo-0", "demo-1"), partitionNames(deleted));
            assertTrue(metrics().family("demo_broker_high_watermark").samples().stream()
                    .noneMatch(sample -> "orders".equals(sample.labels().get("topic"))), "a deleted topic leaves /metrics");
        }
    }

    private static List<String> partitionNames(JsonNode state) {
        List<String> names = new ArrayList<>();
        state.get("partitions").forEach(p -> names.add(p.get("topic").asText() + "-" + p.get("partition").asInt()));
        return names;
    }

    private static double gauge(Exposition exposition, String family, String topic, String partition) {
        return exposition.family(family).samples().stream()
                .filter(sample -> topic.equals(sample.labels().get("topic")) && partition.equals(sample.labels().get("partition")))
                .findFirst().orElseThrow().value();
    }

    @Test
    void httpClientsThatSendNothingOrDoNotReadDoNotDelayKafka() throws Exception {
        // twenty connections that send half a request line and then nothing
        for (int i = 0; i < 20; i++) {
            Socket silent = new Socket("127.0.0.1", dashboard.port());
            closeables.add(silent);
            silent.getOutputStream().write("GET /metr".getBytes(StandardCharsets.US_ASCII));
        }
        // one event stream that never reads a byte: its socket buffers fill, then the server closes it
        Socket deaf = new Socket();
        deaf.setReceiveBufferSize(1024);
        deaf.connect(new java.net.InetSocketAddress("127.0.0.1", dashboard.port()));
        closeables.add(deaf);
        OutputStream out = deaf.getOutputStream();
        out.write("GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();

        WireClient client = brokers.connect();
        for (short acks : new short[] {ACKS_LEADER, ACKS_ALL}) {
            Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, acks, 30_000, 1)));
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
            assertTrue(answer.elapsedNanos() < Duration.ofSeconds(1).toNanos(), "answered in " + answer.elapsedNanos() + " ns");
        }
        assertEquals(200, get("/api/state").statusCode(), "and the dashboard still answers others");
    }
    @Test
    void aNewClientIsServedWithinASecondWhileMoreSlowConnectionsThanTheCapTrickleTheirHeaders() throws Exception {
        for (int i = 0; i < 2 * DashboardServer.MAX_CONNECTIONS; i++) { // slowloris: each sends part of its headers and waits
            Socket slow = new Socket("127.0.0.1", dashboard.port());
            closeables.add(slow);
            slow.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: localhost\r\nX-Slow: a".getBytes(StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
        }
        // each new connection past the cap took the place of the one waiting longest: this one too
        Awaitility.await().atMost(Duration.ofSeconds(1)).pollDelay(Duration.ZERO).until(() -> get("/api/state").statusCode() == 200);
    }

    @Test
    void pipelinedScrapesAreAnsweredOneAfterTheOtherInFull() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", dashboard.port())) {
            socket.setSoTimeout(10_000);
            String scrape = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
            socket.getOutputStream().write((scrape + scrape + scrape).getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 3; i++) {
                assertEquals("HTTP/1.1 200 OK", in.readLine());
                int length = 0;
                for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
                    if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(line.substring("content-length:".length()).strip());
                    }
                }
                char[] body = new char[length];
                for (int read = 0; read < length; ) {
                    read += in.read(body, read, length - read);
                }
                String text = new String(body);
                assertTrue(text.contains("demo_broker_connections ") && text.endsWith("\n"), "scrape " + i + ", whole: " + text);
            }
        }
    }
}
