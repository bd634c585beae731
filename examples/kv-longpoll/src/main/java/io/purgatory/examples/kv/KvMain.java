package io.purgatory.examples.kv;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The example's command line: starts a {@link KvServer} and runs until interrupted (Ctrl-C), then
 * answers every parked query and stops. Not thread-safe; a command-line main.
 */
@Command(name = "example-kv-longpoll", mixinStandardHelpOptions = true, showDefaultValues = true, version = "0.1.0-SNAPSHOT",
        usageHelpWidth = 110,
        description = {
            "A key-value store over HTTP with Consul-style blocking queries, its waits in purgatory-core's Waiters:",
            "  PUT /kv/<key>                    stores the body under the next index (X-Index)",
            "  GET /kv/<key>                    the value, its index in X-Index (404 if never written)",
            "  GET /kv/<key>?index=N&wait=30s   answers as soon as the key's index passes N, or after the wait",
            "                                   with the value as it is then (wait: ms, s, m or h)",
            "  GET /metrics                     the waits' meters (purgatory-micrometer, Prometheus' format)",
            "A query whose client disconnects leaves the purgatory at once. Ctrl-C answers every parked query (503) and stops."})
public final class KvMain implements Callable<Integer> {

    @Option(names = "--bind", description = "Address to listen on.")
    private String bind = "127.0.0.1";

    @Option(names = "--port", description = "Port to listen on (0: any free port).")
    private int port = 8500;

    @Option(names = "--default-wait", description = "Wait of a blocking query that gives none, in seconds.")
    private long defaultWaitSeconds = 300;

    @Option(names = "--max-wait", description = "Longest wait a blocking query gets, in seconds.")
    private long maxWaitSeconds = 600;

    public static void main(String[] args) {
        System.exit(new CommandLine(new KvMain()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        KvServer server = new KvServer(new InetSocketAddress(bind, port), Duration.ofSeconds(defaultWaitSeconds),
                Duration.ofSeconds(maxWaitSeconds));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "kv-shutdown"));
        System.out.println("listening on http://" + bind + ":" + server.port() + "/kv/");
        stopped.await();
        return 0;
    }
}
