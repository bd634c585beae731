package io.purgatory.demo.broker.http;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import io.purgatory.demo.broker.DemoBrokerTest;
import io.purgatory.demo.broker.FetchTest;
import io.purgatory.demo.broker.Waits;
import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.WireClient;
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
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
    /** A line of the Prometheus text format: a comment, or a sample {@code name{labels} value}. */
    private static final Pattern EXPOSITION_LINE = Pattern.compile(
            "# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*"
                    + "|[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\.)*\",?)*\\})? "
                    + "(-?[0-9.]+(E-?[0-9]+)?|NaN|\\+Inf|-Inf)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.topic("demo", 2).followers(2).replicaLag(1, 1));
    private DemoBroker broker;
    private DashboardServer dashboard;

    @BeforeEach
    void start() throws Exception {
        broker = brokers.get();
        dashboard = DashboardServer.start(broker.replicaManager(), broker.stats(), "127.0.0.1", 0);
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
        assertEquals("{\"id\":2,\"stalled\":true,\"lagMs\":1}", stalled.body());
        assertTrue(broker.followers().isStalled(2));
        HttpResponse<String> resumed = post("/api/replicas/2/resume", "");
        assertEquals(200, resumed.statusCode(), resumed.body());
        assertEquals(false, broker.followers().isStalled(2));
    }

    @Test
    void setAFollowersLagOverHttp() throws Exception {
        HttpResponse<String> response = post("/api/replicas/1/lag", "lagMs=250");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("{\"id\":1,\"stalled\":false,\"lagMs\":250}", response.body());
        assertEquals(250, broker.followers().lagMs(1));
        assertEquals(1, broker.followers().lagMs(2));
    }

    @Test
    void aLagSetOverHttpDelaysTheFollowersFetches() throws Exception {
        assertEquals(200, post("/api/replicas/2/lag", "lagMs=300").statusCode());
        try (WireClient client = new WireClient(broker.port())) {
            Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, ACKS_ALL, 30_000, 1)));
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
            // replica 2 fetches 300 ± 1 ms after the append, so the ack cannot come sooner
            assertTrue(answer.elapsedNanos() >= Duration.ofMillis(299).toNanos(), "acked after " + answer.elapsedNanos() + " ns");
        }
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
        try (WireClient client = new WireClient(broker.port())) {
            List<CompletableFuture<Answer>> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                sent.add(client.send(WireClient.produce("demo", i % 2, ACKS_ALL, 30_000, 1)));
            }
            sent.forEach(answer -> Waits.soon().until(answer::isDone));
            HttpResponse<String> response = get("/metrics");
            assertEquals(200, response.statusCode());
            assertEquals("text/plain; version=0.0.4; charset=utf-8", response.headers().firstValue("Content-Type").orElseThrow());
            List<String> lines = response.body().lines().collect(Collectors.toList());
            for (String line : lines) {
                assertTrue(EXPOSITION_LINE.matcher(line).matches(), "not Prometheus text: " + line);
            }
            Set<String> families = lines.stream().filter(line -> line.startsWith("# TYPE "))
                    .map(line -> line.split(" ")[2]).collect(Collectors.toSet());
            assertTrue(families.containsAll(Set.of("purgatory_operations_completed_total", "purgatory_operations_expired_total",
                    "purgatory_watches_purged_total", "purgatory_delayed_operations", "purgatory_watched_operations",
                    "purgatory_expiry_lateness_seconds", "purgatory_expiry_lateness_max_seconds", "demo_broker_requests_total",
                    "demo_broker_response_errors_total", "demo_broker_fetch_responses_total", "demo_broker_connections", "demo_broker_received_bytes_total",
                    "demo_broker_sent_bytes_total", "demo_broker_log_end_offset", "demo_broker_high_watermark",
                    "demo_broker_isr_size", "demo_broker_min_insync_replicas", "demo_broker_replica_stalled")), families.toString());
            assertTrue(lines.contains("demo_broker_requests_total{api=\"Produce\"} 10.0"), response.body());
            assertTrue(lines.contains("demo_broker_response_errors_total{api=\"Produce\",error=\"NONE\"} 10.0"), response.body());
            assertTrue(lines.contains("purgatory_operations_completed_total{purgatory=\"produce\"} 10.0"), response.body());
            assertTrue(lines.contains("demo_broker_connections 1.0"), response.body());
            assertTrue(lines.stream().anyMatch(line -> line.matches("demo_broker_received_bytes_total [1-9][0-9]*\\.0")), response.body());
            assertTrue(lines.stream().anyMatch(line -> line.matches("demo_broker_sent_bytes_total [1-9][0-9]*\\.0")), response.body());
            assertTrue(lines.contains("demo_broker_log_end_offset{partition=\"0\",replica=\"0\",topic=\"demo\"} 5.0"), response.body());
            assertTrue(lines.contains("purgatory_expiry_lateness_seconds{purgatory=\"produce\",quantile=\"0.99\"} 0.0"), response.body());
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(sent.get(0).join()).errorCode());
        }
    }

    @Test
    void fetchResponsesAreCountedByOutcomeInMetricsAndState() throws Exception {
        assertTrue(metricLines().containsAll(fetchResponses(0, 0, 0, 0)), "all four outcomes, from the start");
        try (WireClient consumer = new WireClient(broker.port()); WireClient producer = new WireClient(broker.port())) {
            // a long poll parks until a produce commits a record, then answers with it
            CompletableFuture<Answer> poll = fetch(consumer, 30_000, 0);
            Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
            assertTrue(metricLines().containsAll(fetchResponses(0, 0, 0, 0)), "a parked fetch is not answered yet");
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(
                    producer.send(WireClient.produce("demo", 0, ACKS_ALL, 30_000, 1)))).errorCode());
            assertTrue(fetchedPartition(poll).records().sizeInBytes() > 0);
            assertTrue(metricLines().containsAll(fetchResponses(1, 0, 0, 0)));

            // past the end, nothing more comes: a long poll of 50 ms expires empty; one of 0 ms is empty at once
            assertEquals(0, fetchedPartition(fetch(consumer, 50, 1)).records().sizeInBytes());
            assertEquals(0, fetchedPartition(fetch(consumer, 0, 1)).records().sizeInBytes());
            // an offset past the log end is an error
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), fetchedPartition(fetch(consumer, 30_000, 99)).errorCode());
        }
        List<String> lines = metricLines();
        assertTrue(lines.containsAll(fetchResponses(1, 1, 1, 1)), String.join("\n", lines));

        Pattern state = Pattern.compile(".*\"fetch\":\\{\"dataTotal\":1,\"dataPerSec\":[0-9.]+,\"emptyMaxWaitTotal\":1,"
                + "\"emptyMaxWaitPerSec\":[0-9.]+,\"emptyAtOnceTotal\":1,\"emptyAtOncePerSec\":[0-9.]+,\"errorTotal\":1,"
                + "\"errorPerSec\":[0-9.]+}.*");
        Waits.soon().pollInterval(Duration.ofMillis(50)).until(() -> state.matcher(get("/api/state").body()).matches());
    }

    private List<String> metricLines() throws Exception {
        HttpResponse<String> response = get("/metrics");
        assertEquals(200, response.statusCode());
        return response.body().lines().collect(Collectors.toList());
    }

    private static List<String> fetchResponses(int data, int emptyMaxWait, int emptyAtOnce, int error) {
        return List.of("demo_broker_fetch_responses_total{outcome=\"data\"} " + data + ".0",
                "demo_broker_fetch_responses_total{outcome=\"empty_max_wait\"} " + emptyMaxWait + ".0",
                "demo_broker_fetch_responses_total{outcome=\"empty_at_once\"} " + emptyAtOnce + ".0",
                "demo_broker_fetch_responses_total{outcome=\"error\"} " + error + ".0");
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
        assertTrue(lines.get(1).startsWith("data: [{\"timeMs\":"), lines.get(1));
        assertEquals("event: sample", lines.get(2));
        assertTrue(lines.get(3).startsWith("data: {\"timeMs\":"), lines.get(3));
        assertTrue(lines.get(3).contains("\"replicas\":[{\"id\":1,\"stalled\":false,\"lagMs\":1},{\"id\":2,\"stalled\":false,\"lagMs\":1}]"),
                lines.get(3));
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

        try (WireClient client = new WireClient(broker.port())) {
            for (short acks : new short[] {ACKS_LEADER, ACKS_ALL}) {
                Answer answer = DemoBrokerTest.answer(client.send(WireClient.produce("demo", 0, acks, 30_000, 1)));
                assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(answer).errorCode());
                assertTrue(answer.elapsedNanos() < Duration.ofSeconds(1).toNanos(), "answered in " + answer.elapsedNanos() + " ns");
            }
        }
        assertEquals(200, get("/api/state").statusCode(), "and the dashboard still answers others");
    }
}
