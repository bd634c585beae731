package io.purgatory.examples.kv;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP API one request at a time: reads, writes, blocking queries answered by a write, by their wait, by shutdown. */
class KvServerTest {

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private KvServer server;

    @BeforeEach
    void start() throws InterruptedException {
        server = new KvServer(new InetSocketAddress("127.0.0.1", 0), Duration.ofMinutes(5), Duration.ofMinutes(10));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aWriteIsReadBackWithItsIndex() throws Exception {
        assertEquals("1", put("a", "one").headers().firstValue("X-Index").orElseThrow());
        assertEquals("2", put("b", "two").headers().firstValue("X-Index").orElseThrow());
        HttpResponse<String> read = get("/kv/a");
        assertEquals(200, read.statusCode());
        assertEquals("one", read.body());
        assertEquals("1", read.headers().firstValue("X-Index").orElseThrow());
    }

    @Test
    void aKeyNeverWrittenIsNotFoundAtIndexZero() throws Exception {
        HttpResponse<String> read = get("/kv/missing");
        assertEquals(404, read.statusCode());
        assertEquals("0", read.headers().firstValue("X-Index").orElseThrow());
    }

    @Test
    void aBlockingQueryBehindTheIndexIsAnsweredAtOnce() throws Exception {
        put("a", "one");
        put("a", "two");
        HttpResponse<String> read = get("/kv/a?index=1&wait=10m");
        assertEquals("two", read.body());
        assertEquals("2", read.headers().firstValue("X-Index").orElseThrow());
    }

    @Test
    void aBlockingQueryIsAnsweredByTheWriteThatPassesItsIndex() throws Exception {
        put("a", "one");
        CompletableFuture<HttpResponse<String>> poll = getAsync("/kv/a?index=1&wait=10m");
        await().until(() -> server.waitMetrics().delayed() == 1);
        put("other", "x");
        assertFalse(poll.isDone());

        put("a", "two");

        HttpResponse<String> answer = poll.get(1, TimeUnit.MINUTES);
        assertEquals("two", answer.body());
        assertEquals("3", answer.headers().firstValue("X-Index").orElseThrow());
        assertEquals(0, server.waitMetrics().delayed());
    }

    @Test
    void aBlockingQueryIsAnsweredAtItsWaitWithTheValueUnchanged() throws Exception {
        put("a", "one");
        HttpResponse<String> answer = get("/kv/a?index=1&wait=50ms");
        assertEquals(200, answer.statusCode());
        assertEquals("one", answer.body());
        assertEquals("1", answer.headers().firstValue("X-Index").orElseThrow());
        assertEquals(1, server.waitMetrics().expired());
    }

    @Test
    void theMetricsCountParkedAndAnsweredQueries() throws Exception {
        CompletableFuture<HttpResponse<String>> poll = getAsync("/kv/a?index=0&wait=10m");
        await().until(() -> server.waitMetrics().delayed() == 1);
        assertTrue(get("/metrics").body().contains("purgatory_operations_delayed{purgatory=\"kv\"} 1.0"));

        put("a", "one");
        poll.get(1, TimeUnit.MINUTES);

        String metrics = get("/metrics").body();
        assertTrue(metrics.contains("purgatory_operations_delayed{purgatory=\"kv\"} 0.0"), metrics);
        assertTrue(metrics.contains("purgatory_operations_completed_total{purgatory=\"kv\"} 1.0"), metrics);
    }

    @Test
    void aMalformedWaitIsABadRequest() throws Exception {
        assertEquals(400, get("/kv/a?index=1&wait=soon").statusCode());
        assertEquals(400, get("/kv/a?index=x").statusCode());
    }

    @Test
    void closingTheServerAnswersParkedQueries() throws Exception {
        CompletableFuture<HttpResponse<String>> poll = getAsync("/kv/a?index=0&wait=10m");
        await().until(() -> server.waitMetrics().delayed() == 1);

        server.close();

        assertEquals(503, poll.get(1, TimeUnit.MINUTES).statusCode());
        assertThrows(Exception.class, () -> get("/kv/a"));
    }

    private HttpResponse<String> put(String key, String value) throws Exception {
        return client.send(HttpRequest.newBuilder(uri("/kv/" + key)).PUT(HttpRequest.BodyPublishers.ofString(value)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return client.sendAsync(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
