package io.purgatory.examples.kv;

import io.purgatory.examples.common.ExampleServer;
import io.purgatory.examples.common.ServerCommand;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The example's command line: starts a {@link KvServer} and runs until interrupted (Ctrl-C), then
 * answers every parked query and stops. The options and their errors are {@link ServerCommand}'s
 * ({@code --bind}, {@code --port}, {@code --port-file}) and the waits'. Not thread-safe; a
 * command-line main.
 */
@Command(name = "example-kv-longpoll", mixinStandardHelpOptions = true, showDefaultValues = true, version = "1.0.0-SNAPSHOT",
        usageHelpWidth = 110,
        description = {
            "A key-value store over HTTP with Consul-style blocking queries, its waits in purgatory-core's Waiters:",
            "  PUT /kv/<key>                    stores the body under the next index (X-Index)",
            "  GET /kv/<key>                    the value, its index in X-Index (404 if never written)",
            "  GET /kv/<key>?index=N&wait=30s   answers as soon as the key's index passes N, or after the wait",
            "                                   with the value as it is then (wait: a whole number with its unit,",
            "                                   ms, s, m or h, as Consul's; default --default-wait, cut to --max-wait)",
            "  GET /metrics                     the waits' meters (purgatory-micrometer, Prometheus' format)",
            "A bad index or wait is answered 400 with a line naming it; a value is at most 1 MiB (a larger PUT: 413).",
            "A query whose client disconnects leaves the purgatory at once. Ctrl-C answers every parked query (503) and stops."})
public final class KvMain extends ServerCommand {

    @Option(names = "--default-wait", description = "Wait of a blocking query that gives none, in seconds; at most --max-wait.")
    private long defaultWaitSeconds = 300;

    @Option(names = "--max-wait", description = "Longest wait a blocking query gets, in seconds; at least 1.")
    private long maxWaitSeconds = 600;

    private KvMain() {
        super("example-kv-longpoll", 8500);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command, with an option error reported in one line instead of the whole usage. */
    static CommandLine commandLine() {
        return ServerCommand.commandLine(new KvMain());
    }

    @Override
    protected ExampleServer start(InetSocketAddress address) throws IOException, InterruptedException {
        return new KvServer(address, Duration.ofSeconds(defaultWaitSeconds), Duration.ofSeconds(maxWaitSeconds));
    }

    @Override
    protected String listeningLine(String bind, int port) {
        return "listening on http://" + bind + ":" + port + "/kv/";
    }

    @Override
    protected void checkOwnOptions() {
        require(maxWaitSeconds > 0, "--max-wait must be at least 1 second, not " + maxWaitSeconds);
        require(defaultWaitSeconds >= 0, "--default-wait must not be negative: " + defaultWaitSeconds);
        require(defaultWaitSeconds <= maxWaitSeconds,
                "--default-wait " + defaultWaitSeconds + " is more than --max-wait " + maxWaitSeconds);
    }
}
