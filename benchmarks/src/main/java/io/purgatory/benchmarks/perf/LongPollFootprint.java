package io.purgatory.benchmarks.perf;

import io.purgatory.WaitOutcome;
import io.purgatory.Waiters;
import io.purgatory.examples.kv.KvServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Parked long polls in the KV example ({@code examples/kv-longpoll}): heap per parked blocking query,
 * in the server and in {@code Waiters} alone, and the time one PUT takes to answer many queries
 * parked on one key. The server runs in this JVM; the clients ({@link LongPollClients}) in a child
 * JVM, so that only the server's heap is measured. Both need a descriptor each per connection:
 * raise {@code ulimit -n} first. See docs/benchmarks.md.
 *
 * <pre>
 * ulimit -n 250000     # where the hard limit allows; at 20,000, use --parked 18000
 * java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.perf.LongPollFootprint --parked 100000 --fanout 10000
 * </pre>
 *
 * <p>Not thread-safe; a command-line main.
 */
@Command(name = "longpoll-footprint", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Heap per parked long poll in the KV example, and the time one PUT takes to answer many on one key.")
public final class LongPollFootprint implements Callable<Integer> {

    private static final Duration WAIT = Duration.ofMinutes(10);
    private static final long POLL_MS = 100;

    @Option(names = "--parked", description = "Blocking queries parked at once for the heap figure.")
    private int parked = 100_000;

    @Option(names = "--waits", description = "Futures parked in Waiters alone (no connections) for the heap per wait.")
    private int waits = 100_000;

    @Option(names = "--keys", description = "Keys the parked queries are spread over.")
    private int keys = 1_000;

    @Option(names = "--fanout", description = "Queries parked on one key, answered by one PUT.")
    private int fanout = 10_000;

    @Option(names = "--rounds", description = "PUT rounds for the fan-out time.")
    private int rounds = 3;

    @Option(names = "--addresses", description = "127.0.0.x addresses the clients connect to (ephemeral ports run out at about 28,000 per address).")
    private int addresses = 4;

    @Option(names = "--client-heap", description = "-Xmx of the clients' JVM.")
    private String clientHeap = "2g";

    public static void main(String[] args) {
        System.exit(new CommandLine(new LongPollFootprint()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        System.out.printf(Locale.ROOT, "longpoll-footprint: JDK %s, %d cores, max heap %s MiB%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Figures.mebibytes(Runtime.getRuntime().maxMemory()));
        try (HeapGauge heap = new HeapGauge()) {
            waitersAlone(heap);
            try (KvServer server = new KvServer(new InetSocketAddress("0.0.0.0", 0), WAIT, WAIT)) {
                Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx" + clientHeap, "-cp", System.getProperty("java.class.path"), LongPollClients.class.getName(),
                        Integer.toString(server.port()), Integer.toString(addresses))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                try (BufferedReader reports = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                     Writer commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
                    Clients clients = new Clients(commands, reports);
                    CpuClock cpu = new CpuClock();
                    LongSupplier delayed = () -> server.waitMetrics().delayed();
                    // warm-up: Netty's buffer pools and the JIT, then the baseline
                    clients.park(Math.min(parked, 2_000), keys, "warm-up-", delayed);
                    clients.close(delayed);
                    long before = heap.afterFullGc();
                    clients.park(parked, keys, "parked-", delayed);
                    long holding = heap.afterFullGc();
                    System.out.printf(Locale.ROOT, "server: %s parked blocking queries: heap after full GC %s MiB -> %s MiB, %s bytes per query%n",
                            Figures.count(parked), Figures.mebibytes(before), Figures.mebibytes(holding),
                            Figures.count((double) (holding - before) / parked));
                    clients.close(delayed);
                    for (int round = 1; round <= rounds; round++) {
                        String key = "fanout-" + round + "-";
                        clients.park(fanout, 1, key, delayed);
                        long cpuBefore = cpu.processNanos();
                        String answered = clients.command("put " + key + "0 value-" + round);
                        long cpuUsed = cpu.processNanos() - cpuBefore;
                        System.out.println("one PUT on a key with " + Figures.count(fanout) + " queries parked: " + answered
                                + "; server CPU " + Figures.duration(cpuUsed) + " (" + Figures.duration((double) cpuUsed / fanout) + " per answer)");
                        clients.close(delayed);
                    }
                } finally {
                    process.destroy();
                    process.waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
        return 0;
    }

    /** Heap per wait of {@code Waiters} alone: parked futures, no connection. */
    private void waitersAlone(HeapGauge heap) {
        long[] positions = new long[keys];
        try (Waiters<Integer> waiters = new Waiters<>("footprint", key -> positions[key])) {
            List<CompletableFuture<WaitOutcome>> parkedWaits = new ArrayList<>(waits);
            long before = heap.afterFullGc();
            for (int i = 0; i < waits; i++) {
                parkedWaits.add(waiters.waitFor(i % keys, 1, WAIT));
            }
            long holding = heap.afterFullGc();
            System.out.printf(Locale.ROOT, "Waiters alone: %s parked futures: %s bytes per wait (operation, timer task, position watch, future)%n",
                    Figures.count(waits), Figures.count((double) (holding - before - listBytes(waits)) / waits));
            parkedWaits.clear();
        }
    }

    /** The list holding the futures: its array, 4 bytes a reference with compressed oops. */
    private static long listBytes(int size) {
        return 16L + 4L * size;
    }

    /** Talks to the clients' process: one command, one report line. */
    private record Clients(Writer commands, BufferedReader reports) {

        String command(String command) throws IOException {
            commands.write(command + "\n");
            commands.flush();
            String report = reports.readLine();
            if (report == null) {
                throw new IOException("the clients' process ended");
            }
            return report;
        }

        /** Parks count queries on keys {@code prefix0} to {@code prefix(keys - 1)}, keys never written: each parks. */
        void park(int count, int keys, String prefix, LongSupplier delayed) throws IOException, InterruptedException {
            command("park " + count + " " + keys + " " + prefix);
            waitUntil(() -> delayed.getAsLong() == count);
        }

        void close(LongSupplier delayed) throws IOException, InterruptedException {
            command("close");
            waitUntil(() -> delayed.getAsLong() == 0);
        }

        /** A tool's poll, not a test's: the server has no notification to offer for "n parked". */
        private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
            while (!condition.getAsBoolean()) {
                TimeUnit.MILLISECONDS.sleep(POLL_MS);
            }
        }
    }
}
