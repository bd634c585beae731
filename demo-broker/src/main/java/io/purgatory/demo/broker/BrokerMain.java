package io.purgatory.demo.broker;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.BrokerSettings;
import io.purgatory.demo.broker.http.DashboardServer;
import io.purgatory.demo.broker.metrics.OutOfMemoryExit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The {@code demo-broker} command: parses options, starts a {@link DemoBroker}, and closes it on
 * SIGTERM or Ctrl-C (answering parked requests first); unless {@code --http-port -1}, it also serves
 * the {@link DashboardServer dashboard and metrics}. Exit status: 0 after the console's {@code quit},
 * the JVM's 130 or 143 after Ctrl-C or SIGTERM (once parked requests are answered, or 143 after
 * {@value #SHUTDOWN_BOUND_MS} ms if they cannot be), 3 at once on an {@link OutOfMemoryError}
 * ({@link OutOfMemoryExit}), 1 when the
 * Kafka or the dashboard port cannot be bound or {@code --port-file} cannot be written, 2 for
 * invalid options, all checked before anything starts. Every error is one line, without a stack trace or an exception's text.
 *
 * <p>Not thread-safe: picocli fills the fields, then calls {@link #call()} once, on one thread; the
 * broker it starts is thread-safe and is closed by the shutdown hook or the console's {@code quit}.
 */
@Command(name = "demo-broker", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        version = "demo-broker 0.1.0",
        description = {
            "A small broker that speaks the Kafka wire protocol (ApiVersions, Metadata, InitProducerId, Produce, Fetch,"
                + " ListOffsets, and the classic consumer group APIs), so a Kafka producer, a Kafka consumer (assign() or"
                + " subscribe() in a group), Kafka's console and group tools, kcat or demo-client can use it. Records are"
                + " kept in memory, up to --retention-bytes per partition.",
            "Each partition has a leader (this broker, replica 0) and simulated followers. A produce with acks=-1 waits in"
                + " the 'produce' DelayedOperationPurgatory until every in-sync replica has its records, or answers"
                + " REQUEST_TIMED_OUT when the request's timeout passes first. acks=1 is answered after the leader append;"
                + " acks=0 gets no response.",
            "Consumers read below the high watermark (what every in-sync replica has). A fetch whose min.bytes are not"
                + " there yet waits in the 'fetch' purgatory until the high watermark brings them or max.wait.ms passes.",
            "Groups: a rebalance waits in the 'rebalance' purgatory (DelayedJoin until every member rejoins, InitialDelayedJoin"
                + " for a new group, DelayedSync for the SyncGroups), each member's session in the 'heartbeat' purgatory"
                + " (DelayedHeartbeat: a member that stops heartbeating is removed after its session timeout). Committed"
                + " offsets are kept in memory: they survive member restarts and the group becoming empty, not a broker restart.",
            ""},
        footer = {"",
            "Examples:",
            "  Pick a free port and write it to a file:",
            "    demo-broker --port 0 --port-file broker.port",
            "  Replica 2 never fetches: every acks=-1 produce times out:",
            "    demo-broker --stall-replica 2",
            "  Replica 2 stalls 2.5 s after every 4 s of fetching: acks, then timeouts:",
            "    demo-broker --stall-replica 2 --stall-ms 2500 --healthy-ms 4000",
            "  Replica 2 stalls after 5 s and leaves the ISR 1 s later; parked produces then complete without it:",
            "    demo-broker --stall-replica 2 --stall-after-ms 5000 --replica-lag-time-max-ms 1000",
            "",
            "  Watch acks and timeouts live, stall and resume replicas with a click:",
            "    demo-broker --http-port 8080, then open http://127.0.0.1:8080/",
            "",
            "Stop it with Ctrl-C or SIGTERM: parked requests are answered (NOT_LEADER_OR_FOLLOWER) before connections close."})
public final class BrokerMain implements Callable<Integer> {
    static final String CONSOLE_COMMANDS = "commands: stall ID | resume ID | isr | quit";
    /** The status the JVM exits with after SIGTERM (128 + 15). */
    static final int SIGTERM_STATUS = 143;

    @Spec
    CommandSpec spec;

    /** The settings' values, read from the options picocli parsed ({@link BrokerSettings#addTo}) when {@link #call()} starts. */
    private BrokerConfig config;

    /** How long SIGTERM or Ctrl-C waits for the broker to answer what is parked and close; then the process halts. */
    static final long SHUTDOWN_BOUND_MS = 15_000;

    public static void main(String[] args) {
        OutOfMemoryExit.installAsDefaultHandler();
        System.exit(commandLine().execute(args));
    }

    /**
     * The command, its options from the settings table ({@link BrokerSettings}), with an option
     * error reported in one line (the error, and where help is) instead of the whole usage.
     */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BrokerMain());
        BrokerSettings.addTo(commandLine.getCommandSpec());
        return commandLine.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("demo-broker: " + e.getMessage() + " (see 'demo-broker --help')");
            return CommandLine.ExitCode.USAGE;
        });
    }

    @Override
    public Integer call() throws Exception {
        config = BrokerConfig.fromCommandLine(spec);
        checkOptions();
        int httpPort = config.get(BrokerSettings.HTTP_PORT);
        String httpHost = config.get(BrokerSettings.HTTP_HOST);
        Path portFile = config.get(BrokerSettings.PORT_FILE);
        Path httpPortFile = config.get(BrokerSettings.HTTP_PORT_FILE);
        final DemoBroker broker;
        try {
            broker = DemoBroker.start(config);
        } catch (Exception e) {
            spec.commandLine().getErr().println("demo-broker: cannot listen on port " + config.port() + ": " + e.getMessage());
            return 1;
        }
        final DashboardServer dashboard;
        try {
            dashboard = httpPort < 0 ? null : DashboardServer.start(broker.replicaManager(), broker.coordinator(), broker.stats(),
                    httpHost, httpPort);
        } catch (Exception e) {
            broker.close();
            spec.commandLine().getErr().println("demo-broker: cannot serve the dashboard on " + httpHost + ":" + httpPort + ": "
                    + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        }
        Runnable stop = () -> {
            if (dashboard != null) {
                dashboard.close();
            }
            broker.close();
        };
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runWithin(stop, SHUTDOWN_BOUND_MS, System.err, status -> Runtime.getRuntime().halt(status));
            stopped.countDown();
        }, "demo-broker-shutdown"));
        if (portFile != null) {
            try {
                Files.writeString(portFile, broker.port() + System.lineSeparator());
            } catch (IOException e) {
                spec.commandLine().getErr().println("demo-broker: cannot write the port to " + portFile + ": " + reason(e));
                stop.run();
                return 1;
            }
        }
        if (httpPortFile != null && dashboard != null) {
            try {
                Files.writeString(httpPortFile, dashboard.port() + System.lineSeparator());
            } catch (IOException e) {
                spec.commandLine().getErr().println("demo-broker: cannot write the dashboard's port to " + httpPortFile + ": " + reason(e));
                stop.run();
                return 1;
            }
        }
        if (config.get(BrokerSettings.CONSOLE)) {
            readConsole(broker, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), System.out);
            stop.run();
            return 0;
        }
        stopped.await();
        return 0;
    }

    /**
     * Runs {@code stop} on a thread of its own and waits for it at most {@code boundMs}; if it is still
     * running then, writes one line to {@code err} and halts with status 143 (what SIGTERM gives), so
     * that SIGTERM is honoured however the broker is stuck.
     */
    static void runWithin(Runnable stop, long boundMs, PrintStream err, IntConsumer halt) {
        Thread stopping = new Thread(stop, "demo-broker-stop");
        stopping.setDaemon(true);
        stopping.start();
        try {
            stopping.join(boundMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopping.isAlive()) {
            err.println("demo-broker: shutdown did not finish within " + boundMs + " ms; exiting without it");
            err.flush();
            halt.accept(SIGTERM_STATUS);
        }
    }

    /**
     * Checks every option before anything starts, naming the options as the user typed them: each
     * broker setting and the dashboard's, then what one option cannot tell alone.
     */
    private void checkOptions() {
        try {
            config.validate();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        boolean stalls = !config.stalledReplicas().isEmpty();
        require(stalls || !given("--stall-ms"), "--stall-ms does nothing without --stall-replica");
        require(stalls || !given("--healthy-ms"), "--healthy-ms does nothing without --stall-replica");
        require(stalls || !given("--stall-after-ms"), "--stall-after-ms does nothing without --stall-replica");
        require(config.stallMs() > 0 || !given("--healthy-ms"),
                "--healthy-ms does nothing without --stall-ms: a stall without --stall-ms lasts until the end");
        String httpHost = config.get(BrokerSettings.HTTP_HOST);
        if (config.get(BrokerSettings.HTTP_PORT) >= 0) {
            require(isLocalAddress(httpHost), "--http-host " + httpHost + " is not an address of this machine");
        }
    }

    /** Whether the dashboard can listen on {@code host}: the wildcard or an address of one of this machine's interfaces. */
    private static boolean isLocalAddress(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isAnyLocalAddress() || address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    /** Why a file could not be written, in words rather than an exception's name. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : "an I/O error";
    }

    /**
     * Reads console commands until {@code quit} or the end of input; a command it cannot carry out
     * gets one line saying why.
     */
    static void readConsole(DemoBroker broker, BufferedReader in, PrintStream out) throws IOException {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] words = line.trim().split("\\s+");
            switch (words[0]) {
                case "stall", "resume" -> {
                    int followers = broker.config().followers();
                    int replicaId = words.length == 2 ? replicaId(words[1], followers) : 0;
                    if (followers == 0) {
                        out.println("there are no follower replicas to " + words[0] + " (--replicas 0)");
                    } else if (replicaId == 0) {
                        out.println("usage: " + words[0] + " ID, where ID is a follower replica 1.." + followers);
                    } else if (words[0].equals("stall")) {
                        broker.followers().stall(replicaId);
                    } else {
                        broker.followers().resume(replicaId);
                    }
                }
                case "isr" -> broker.config().topics().forEach((topic, partitions) -> {
                    for (int p = 0; p < partitions; p++) {
                        Partition partition = broker.replicaManager().partition(topic, p);
                        out.println(topic + "-" + p + " ISR " + partition.isr() + " log end offset " + partition.leaderEndOffset());
                    }
                });
                case "quit" -> {
                    return;
                }
                case "" -> { }
                default -> out.println(CONSOLE_COMMANDS);
            }
        }
    }

    /** The follower replica id a console word names, or 0 if it names none. */
    private static int replicaId(String word, int followers) {
        try {
            int id = Integer.parseInt(word);
            return id >= 1 && id <= followers ? id : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
