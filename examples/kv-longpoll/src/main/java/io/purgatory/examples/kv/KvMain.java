package io.purgatory.examples.kv;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The example's command line: starts a {@link KvServer} and runs until interrupted (Ctrl-C), then
 * answers every parked query and stops. Every option is checked before anything starts; a bad one
 * is reported in one line, naming it, with exit code 2; an address it cannot listen on, in one line
 * with exit code 1. Not thread-safe; a command-line main.
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
public final class KvMain implements Callable<Integer> {

    @Option(names = "--bind", description = "Address to listen on.")
    private String bind = "127.0.0.1";

    @Option(names = "--port", description = "Port to listen on, 0 to 65535 (0: any free port).")
    private int port = 8500;

    @Option(names = "--default-wait", description = "Wait of a blocking query that gives none, in seconds; at most --max-wait.")
    private long defaultWaitSeconds = 300;

    @Option(names = "--max-wait", description = "Longest wait a blocking query gets, in seconds; at least 1.")
    private long maxWaitSeconds = 600;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command, with an option error reported in one line instead of the whole usage. */
    static CommandLine commandLine() {
        return new CommandLine(new KvMain()).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("example-kv-longpoll: " + e.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        });
    }

    @Override
    public Integer call() throws InterruptedException {
        checkOptions();
        KvServer server;
        try {
            server = new KvServer(new InetSocketAddress(bind, port), Duration.ofSeconds(defaultWaitSeconds),
                    Duration.ofSeconds(maxWaitSeconds));
        } catch (IOException e) { // Netty's bind throws the socket's exception unchecked: a port in use, say
            spec.commandLine().getErr().println("example-kv-longpoll: cannot listen on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "kv-shutdown"));
        System.out.println("listening on http://" + bind + ":" + server.port() + "/kv/");
        stopped.await();
        return 0;
    }

    /** Checks every option before anything starts; a bad one is a {@link CommandLine.ParameterException} naming it. */
    private void checkOptions() {
        require(port >= 0 && port <= 65535, "--port must be from 0 to 65535, not " + port);
        require(isLocalAddress(bind), "--bind " + bind + " is not an address of this machine");
        require(maxWaitSeconds > 0, "--max-wait must be at least 1 second, not " + maxWaitSeconds);
        require(defaultWaitSeconds >= 0, "--default-wait must not be negative: " + defaultWaitSeconds);
        require(defaultWaitSeconds <= maxWaitSeconds,
                "--default-wait " + defaultWaitSeconds + " is more than --max-wait " + maxWaitSeconds);
    }

    /** Whether the server can listen on {@code host}: the wildcard, or an address of one of this machine's interfaces. */
    private static boolean isLocalAddress(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isAnyLocalAddress() || address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
