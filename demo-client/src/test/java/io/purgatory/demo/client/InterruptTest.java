package io.purgatory.demo.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.BrokerExtension;
import io.purgatory.demo.broker.DemoBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * demo-client in its own JVM, stopped mid-run the way Ctrl-C or {@code kill} stops it (a signal
 * that runs the shutdown hooks; the test sends SIGTERM, which a test can always deliver): it prints
 * the summary so far.
 */
@Tag("integration")
class InterruptTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.stallReplica(2));

    @Test
    void aStoppedRunPrintsTheSummarySoFarAndExitsWithTheSignalsStatus(DemoBroker broker) throws Exception {
        Process client = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), ClientMain.class.getName(),
                "--bootstrap", "localhost:" + broker.port(), "--requests", "100000", "--rate", "100", "--timeout-ms", "60000")
                .start();
        List<String> out = collect(client.getInputStream());
        List<String> err = collect(client.getErrorStream());
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> out.stream().anyMatch(line -> line.startsWith("[")));

            client.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its output

            assertTrue(client.waitFor(20, TimeUnit.SECONDS), "the client exits");
            assertEquals(143, client.exitValue(), "128 + SIGTERM, as --help says");
            await().atMost(Duration.ofSeconds(5)).until(() -> out.stream().anyMatch(line -> line.startsWith("Summary: ")));
            assertTrue(err.stream().anyMatch(line -> line.matches("demo-client: interrupted with \\d+ request\\(s\\) in flight; \\d+ not sent")),
                    () -> String.join("\n", err));
            int header = out.indexOf(out.stream().filter(line -> line.startsWith("  outcome ")).findFirst().orElseThrow());
            long accountedFor = out.subList(header + 1, out.size()).stream().takeWhile(line -> !line.startsWith("  ("))
                    .mapToLong(row -> Long.parseLong(row.trim().split(" {2,}")[1])).sum();
            assertEquals(100_000, accountedFor, () -> "the summary's rows add up to the requests: " + String.join("\n", out));
        } finally {
            client.destroyForcibly();
        }
    }

    @Test
    void aRunUntilStoppedSendsUntilItsSignalAndAccountsForEverySentRequest(DemoBroker broker) throws Exception {
        Process client = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), ClientMain.class.getName(),
                "--bootstrap", "localhost:" + broker.port(), "--requests", "0", "--rate", "100", "--timeout-ms", "60000")
                .start();
        List<String> out = collect(client.getInputStream());
        List<String> err = collect(client.getErrorStream());
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> out.stream().anyMatch(line -> line.startsWith("[")));
            assertTrue(out.stream().anyMatch(line -> line.startsWith("demo-client: produce requests until stopped (Ctrl-C) to 'demo'")),
                    () -> String.join("\n", out));

            client.toHandle().destroy();

            assertTrue(client.waitFor(20, TimeUnit.SECONDS), "the client exits");
            assertEquals(143, client.exitValue(), "128 + SIGTERM");
            await().atMost(Duration.ofSeconds(5)).until(() -> out.stream().anyMatch(line -> line.startsWith("Summary: ")));
            assertTrue(err.stream().anyMatch(line -> line.matches("demo-client: interrupted with \\d+ request\\(s\\) in flight; 0 not sent")),
                    () -> String.join("\n", err));
            String summary = out.stream().filter(line -> line.startsWith("Summary: ")).findFirst().orElseThrow();
            long sent = Long.parseLong(summary.split(" ")[1]);
            assertTrue(summary.startsWith("Summary: " + sent + " requests sent in "), summary);
            int header = out.indexOf(out.stream().filter(line -> line.startsWith("  outcome ")).findFirst().orElseThrow());
            long accountedFor = out.subList(header + 1, out.size()).stream().takeWhile(line -> !line.startsWith("  ("))
                    .mapToLong(row -> Long.parseLong(row.trim().split(" {2,}")[1])).sum();
            assertEquals(sent, accountedFor, () -> "the summary's rows add up to the requests sent: " + String.join("\n", out));
        } finally {
            client.destroyForcibly();
        }
    }

    /** The stream's lines, collected as they come by a daemon thread. */
    private static List<String> collect(InputStream stream) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException closed) {
                // the process ended
            }
        }, "interrupt-test-reader");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }
}
