package io.purgatory.examples.kv;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The clients of {@link KvLongPollTest}, in a process of their own (10,000 connections on each side
 * would not fit one process's descriptor limit): parks {@code keys x pollsPerKey} blocking queries
 * ({@code GET /kv/key-i?index=0&wait=...}) with {@link HttpClient#sendAsync}, then follows commands
 * on stdin and reports on stdout, one line each:
 * <ol>
 *   <li>prints {@code sent N} once every query is sent;</li>
 *   <li>on {@code cancel}: cancels every third query ({@code cancel(true)} aborts the exchange and
 *       closes its connection) and prints {@code cancelled N};</li>
 *   <li>then waits for the others and prints {@code answered N ok M}, M being the answers with
 *       status 200, the body {@code value-of-key-i} and an {@code X-Index} above 0.</li>
 * </ol>
 * Not thread-safe; a test's main.
 */
public final class LongPollClients {

    private LongPollClients() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int keys = Integer.parseInt(args[1]);
        int pollsPerKey = Integer.parseInt(args[2]);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        for (int p = 0; p < pollsPerKey; p++) {
            for (int k = 0; k < keys; k++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/kv/key-" + k + "?index=0&wait=5m"))
                        .timeout(Duration.ofMinutes(6)).build();
                polls.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
            }
        }
        System.out.println("sent " + polls.size());
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (!"cancel".equals(commands.readLine())) {
            throw new IllegalStateException("expected the command cancel");
        }
        int cancelled = 0;
        List<CompletableFuture<HttpResponse<String>>> kept = new ArrayList<>();
        for (int i = 0; i < polls.size(); i++) {
            if (i % 3 == 0 && polls.get(i).cancel(true)) {
                cancelled++;
            } else {
                kept.add(polls.get(i));
            }
        }
        System.out.println("cancelled " + cancelled);
        int ok = 0;
        for (CompletableFuture<HttpResponse<String>> poll : kept) {
            HttpResponse<String> response = poll.get(5, TimeUnit.MINUTES);
            String key = response.uri().getPath().substring("/kv/".length());
            long index = response.headers().firstValueAsLong(KvHandler.INDEX_HEADER).orElse(0);
            if (response.statusCode() == 200 && response.body().equals("value-of-" + key) && index > 0) {
                ok++;
            }
        }
        System.out.println("answered " + kept.size() + " ok " + ok);
    }
}
