package io.purgatory.examples.kv;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 10,000 blocking queries parked at once on 100 keys, from {@link LongPollClients} in a process of
 * its own; a third of them cancelled by closing their connections, which the server notices and
 * turns into cancelled waits; the rest answered by one PUT per key. Afterwards no wait is pending,
 * every one completed exactly once, and what is still linked is tombstones under the purge interval.
 */
@Tag("integration")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KvLongPollTest {

    private static final int KEYS = 100;
    private static final int POLLS_PER_KEY = 100;
    private static final int POLLS = KEYS * POLLS_PER_KEY;
    private static final int DEFAULT_PURGE_INTERVAL = 1_000;

    @Test
    void tenThousandParkedQueriesAreAnsweredOrCancelledAndNothingIsLeft() throws Exception {
        try (KvServer server = new KvServer(new InetSocketAddress("127.0.0.1", 0), Duration.ofMinutes(5), Duration.ofMinutes(10))) {
            Process clients = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), LongPollClients.class.getName(),
                    Integer.toString(server.port()), Integer.toString(KEYS), Integer.toString(POLLS_PER_KEY))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader reports = new BufferedReader(new InputStreamReader(clients.getInputStream(), StandardCharsets.UTF_8));
                 Writer commands = new OutputStreamWriter(clients.getOutputStream(), StandardCharsets.UTF_8)) {
                assertEquals("sent " + POLLS, reports.readLine());
                await().atMost(Duration.ofMinutes(3)).until(() -> server.waitMetrics().delayed() == POLLS);

                commands.write("cancel\n");
                commands.flush();
                int cancelled = POLLS / 3 + 1; // every third of 0..9,999
                assertEquals("cancelled " + cancelled, reports.readLine());
                await().atMost(Duration.ofMinutes(1)).until(() -> server.waitMetrics().delayed() == POLLS - cancelled);

                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                for (int k = 0; k < KEYS; k++) {
                    HttpResponse<String> put = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/kv/key-" + k))
                            .PUT(HttpRequest.BodyPublishers.ofString("value-of-key-" + k)).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, put.statusCode());
                }

                int answered = POLLS - cancelled;
                assertEquals("answered " + answered + " ok " + answered, reports.readLine());
                assertEquals(0, clients.waitFor());
            } finally {
                clients.destroyForcibly();
            }
            assertEquals(0, server.waitMetrics().delayed(), "waits pending");
            assertEquals(0, server.waitMetrics().expired(), "none timed out");
            assertEquals(POLLS, server.waitMetrics().completed(), "each wait completed once: answered, or cancelled by its closed connection");
            // what may still be linked are tombstones of the cancelled waits, which reference nothing; the
            // purgatory purges them once more than its purge interval (1,000 by default) have gathered
            assertTrue(server.waitMetrics().watched() <= DEFAULT_PURGE_INTERVAL, () -> "tombstones: " + server.waitMetrics().watched());
        }
    }
}
