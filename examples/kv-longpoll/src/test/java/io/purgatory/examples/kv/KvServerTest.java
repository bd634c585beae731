package io.purgatory.examples.kv;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
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
    void start() throws Exception {
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
    void aMalformedIndexOrWaitIsABadRequestNamingTheParameter() throws Exception {
        for (String query : new String[] {"index=abc", "index=-1", "index=9223372036854775808", "index=1&wait=soon",
                "index=1&wait=5", "index=1&wait=-5s", "index=1&wait=5d"}) {
            HttpResponse<String> response = get("/kv/a?" + query);
            String parameter = query.contains("wait") ? "wait" : "index";
            assertEquals(400, response.statusCode(), query);
            assertTrue(response.body().startsWith(parameter + " must "), query + ": " + response.body());
            assertEquals(1, response.body().lines().count(), query + ": " + response.body());
        }
    }

    @Test
    void theLargestIndexWaitsLikeAnyIndexNotPassedYet() throws Exception {
        put("a", "one");
        CompletableFuture<HttpResponse<String>> poll = getAsync("/kv/a?index=" + Long.MAX_VALUE + "&wait=10m");
        await().until(() -> server.waitMetrics().delayed() == 1); // parked, not answered at once

        put("a", "two");
        assertEquals(1, server.waitMetrics().delayed(), "no index passes Long.MAX_VALUE");
        server.close();
        assertEquals(503, poll.get(1, TimeUnit.MINUTES).statusCode());
    }

    @Test
    void aValueOverOneMebibyteIsRefusedWithTheReason() throws Exception {
        String tooLarge = "x".repeat((1 << 20) + 1);

        HttpResponse<String> response = put("a", tooLarge);

        assertEquals(413, response.statusCode());
        assertEquals("a value is at most 1048576 bytes; this request's body is 1048577 bytes\n", response.body());
        // curl asks first for a body over 1 MiB (Expect: 100-continue); the JDK 17 client hangs on a refusal there
        // (JDK-8286171), so the request is written by hand, headers only, as curl writes it
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(("PUT /kv/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + tooLarge.length()
                    + "\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String status = in.readLine();
            int length = -1;
            for (String header = in.readLine(); !header.isEmpty(); header = in.readLine()) {
                if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(header.substring("content-length:".length()).trim());
                }
            }
            char[] body = new char[Math.max(0, length)];
            assertEquals(body.length, in.read(body, 0, body.length), "the body at once");
            assertTrue(status.startsWith("HTTP/1.1 413 "), status);
            assertEquals("a value is at most 1048576 bytes; this request's body is 1048577 bytes\n", new String(body));
        }
        assertEquals(404, get("/kv/a").statusCode(), "nothing stored");
        assertEquals(200, put("a", "x".repeat(1 << 20)).statusCode(), "1 MiB exactly is a value");
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
