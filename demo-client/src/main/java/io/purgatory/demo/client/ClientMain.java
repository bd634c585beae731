package io.purgatory.demo.client;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The {@code demo-client} command: parses and checks the options, runs a {@link DemoClient} load,
 * prints the summary and turns the result into an exit code. Output goes to the command line's
 * {@link CommandLine#getOut() out} and {@link CommandLine#getErr() err} writers, so tests can capture
 * it with {@link CommandLine#setOut} and {@link CommandLine#setErr}.
 *
 * <p>Ctrl-C or SIGTERM ends the run at once: a shutdown hook stops the load and waits until the
 * summary of what happened so far is printed, with a line saying so on standard error; the exit
 * status is then the signal's (130, 143).
 *
 * <p>Not thread-safe: picocli fills the fields, then calls {@link #call()} once, on one thread.
 */
@Command(name = "demo-client", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        version = "demo-client 0.1.0",
        description = {
            "Sends produce requests to a Kafka broker (made for demo-broker) over one",
            "connection and shows, every second and at the end, what became of them.",
            "Request i carries one record batch of one record, to partition i mod partitions;",
            "the record's sent-at-us header holds its send time, for a consumer's latency.",
            "With --mode consume (or both, beside the producer) it long-polls every partition",
            "with Fetch and reports records consumed, fetches answered with data versus",
            "empty at max.wait.ms, and end-to-end latency from send to consume.",
            "",
            "Outcomes:",
            "  acked         the broker answered NONE; with acks=-1 every in-sync replica",
            "                has the record",
            "  timed out     REQUEST_TIMED_OUT: the request waited in the broker's purgatory",
            "                for its replicas until --timeout-ms passed",
            "  other errors  any other error code, by name (e.g. NOT_ENOUGH_REPLICAS;",
            "                NOT_LEADER_OR_FOLLOWER: the broker shut down, or its leadership",
            "                moved, with the request waiting), and the two below",
            "  no response   nothing came back within --timeout-ms + --grace-ms",
            "  disconnected  the connection was lost while the request was in flight",
            "  sent          acks=0: written; the broker sends no response",
            "",
            "The summary gives latency percentiles per outcome and a histogram in log2",
            "millisecond buckets, where fast acks and requests parked until their timeout",
            "show up as two populations.",
            ""},
        footer = {"",
            "Example: a follower stalls 2.5 s in every 6.5 s; acks and timeouts alternate",
            "  java -jar demo-broker/target/demo-broker.jar --stall-replica 2 \\",
            "      --stall-ms 2500 --healthy-ms 4000 &",
            "  java -jar demo-client/target/demo-client.jar --requests 2000 --rate 200",
            "More:",
            "  demo-client --acks 1                    # the leader answers; no timeouts",
            "  demo-client --rate 0 --concurrency 50   # as fast as 50 in flight allow",
            "  demo-client --mode both                 # produce and consume: end-to-end latency",
            "  demo-client --mode consume --from earliest --consume-ms 5000",
            "  demo-client --group g --consumers 3 --crash-after-ms 5000 --consume-ms 30000   # a consumer group; one member crashes",
            "",
            "Exit status:",
            "  0  every request got the broker's answer (acked, timed out, an error code)",
            "     or, with acks=0, was sent",
            "  1  no connection, no such topic, or requests with no response, disconnected",
            "     or not sent",
            "  2  invalid options",
            "  130  interrupted by Ctrl-C (SIGINT), 143 by SIGTERM (128 + the signal, as a",
            "       shell reports it): the summary so far is printed first"},
        exitCodeOnInvalidInput = 2)
public final class ClientMain implements Callable<Integer> {
    static final int MAX_RECORD_SIZE = 1024 * 1024;
    /**
     * What {@link #call()} returns for a run stopped by its stop signal. The process's exit status
     * is the JVM's for the signal (130 for SIGINT, 143 for SIGTERM): {@code System.exit} waits for
     * the shutdown hooks, and the signal's status wins.
     */
    static final int EXIT_INTERRUPTED = 130;
    /** How long the JVM's shutdown waits for the summary of an interrupted run (the handshake may still be going on). */
    private static final long INTERRUPT_REPORT_MS = 5_000;

    @Spec
    private CommandSpec spec;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", defaultValue = "localhost:9092", converter = EndpointConverter.class,
            description = "The broker to connect to. Default: ${DEFAULT-VALUE}.")
    Endpoint bootstrap;

    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "demo",
            description = "Topic to produce to; it must exist. Default: ${DEFAULT-VALUE}.")
    String topic;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "2000",
            description = "Produce requests to send in total; 0 = until stopped (Ctrl-C). Default: ${DEFAULT-VALUE}.")
    int requests;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "200",
            description = "Target requests per second; 0 = as fast as --concurrency allows. Default: ${DEFAULT-VALUE}.")
    double rate;

    @Option(names = "--concurrency", paramLabel = "C", defaultValue = "500",
            description = "Most requests in flight at once; at the limit, sending waits for outcomes. Default: ${DEFAULT-VALUE}.")
    int concurrency;

    @Option(names = "--acks", paramLabel = "ACKS", defaultValue = "-1", converter = AcksConverter.class,
            description = "-1 (or all): wait for every in-sync replica; 1: the leader only; 0: no response. Default: ${DEFAULT-VALUE}.")
    short acks;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "1000",
            description = "The produce request's timeoutMs: how long the broker waits for replicas before answering"
                    + " REQUEST_TIMED_OUT. Default: ${DEFAULT-VALUE}.")
    int timeoutMs;

    @Option(names = "--record-size", paramLabel = "BYTES", defaultValue = "100",
            description = "Value size of the one record in each request (0.." + MAX_RECORD_SIZE + "). Default: ${DEFAULT-VALUE}.")
    int recordSize;

    @Option(names = "--grace-ms", paramLabel = "MS", defaultValue = "5000",
            description = "How much longer than --timeout-ms to wait for a response before counting 'no response'; also the"
                    + " limit for the ApiVersions and Metadata requests. Default: ${DEFAULT-VALUE}.")
    int graceMs;

    @Option(names = "--connect-timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "How long connecting may take. Default: ${DEFAULT-VALUE}.")
    int connectTimeoutMs;

    /** What the client does. */
    enum Mode { produce, consume, both }

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "produce",
            description = "produce: the produce load (the options above); consume: long-poll every partition with Fetch for"
                    + " --consume-ms; both: the produce load and, on a second connection, a consumer that reports end-to-end"
                    + " latency. Default: ${DEFAULT-VALUE}.")
    Mode mode;

    @Option(names = "--fetch-min-bytes", paramLabel = "BYTES", defaultValue = "1",
            description = "Consumer: each fetch waits in the broker until this much committed data is there. Default: ${DEFAULT-VALUE}.")
    int fetchMinBytes;

    @Option(names = "--fetch-max-wait-ms", paramLabel = "MS", defaultValue = "500",
            description = "Consumer: ... or until this long has passed; then it is answered with what is there. Default: ${DEFAULT-VALUE}.")
    int fetchMaxWaitMs;

    @Option(names = "--fetch-max-bytes", paramLabel = "BYTES", defaultValue = "1048576",
            description = "Consumer: most bytes per fetch (the first batch comes whole). Default: ${DEFAULT-VALUE}.")
    int fetchMaxBytes;

    @Option(names = "--from", paramLabel = "WHERE", defaultValue = "latest",
            description = "Consumer: start at each partition's 'earliest' offset or its 'latest' (the high watermark)."
                    + " Default: ${DEFAULT-VALUE}.")
    String from;

    @Option(names = "--consume-ms", paramLabel = "MS", defaultValue = "10000",
            description = "--mode consume: how long to consume. Default: ${DEFAULT-VALUE}.")
    long consumeMs;

    @Option(names = "--drain-ms", paramLabel = "MS", defaultValue = "5000",
            description = "--mode both: after the producer's last outcome, read on at most this long until caught up with the"
                    + " high watermarks. Default: ${DEFAULT-VALUE}.")
    long drainMs;

    @Option(names = "--group", paramLabel = "NAME",
            description = "Consume as consumer group NAME for --consume-ms: --consumers real Kafka consumers subscribe to --topic and"
                    + " print their assignments at each rebalance and the records each read (instead of --mode).")
    String group;

    @Option(names = "--consumers", paramLabel = "N", defaultValue = "3",
            description = "--group: how many consumers. Default: ${DEFAULT-VALUE}.")
    int consumers;

    @Option(names = "--crash-after-ms", paramLabel = "MS", defaultValue = "0",
            description = "--group: one more member (the client's own protocol code) that stops heartbeating MS after its first"
                    + " assignment, without leaving, so the broker expires it after its session timeout and the others take over;"
                    + " 0 = none."
                    + " Default: ${DEFAULT-VALUE}.")
    long crashAfterMs;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command, with option errors reported in two lines (the error, then where help is) instead of the whole usage.
     * An option given twice takes its last value, so that {@code ./demo.sh --requests 6000} overrides the script's own.
     */
    static CommandLine commandLine() {
        return new CommandLine(new ClientMain()).setOverwrittenOptionsAllowed(true).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("demo-client: " + e.getMessage());
            e.getCommandLine().getErr().println("Try 'demo-client --help' for the options.");
            return 2;
        });
    }

    @Override
    public Integer call() throws InterruptedException {
        if (group != null) {
            return groupConsume(options());
        }
        if (mode != Mode.produce) {
            return consume(options(), consumeOptions());
        }
        ClientOptions options = options();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CountDownLatch reported = new CountDownLatch(1);
        Thread onInterrupt = new Thread(() -> {
            stop.complete(null);
            try {
                reported.await(INTERRUPT_REPORT_MS, TimeUnit.MILLISECONDS); // the JVM exits when this hook returns
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "demo-client-interrupted");
        Runtime.getRuntime().addShutdownHook(onInterrupt);
        try {
            return runAndReport(options, out, err, stop);
        } finally {
            reported.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(onInterrupt);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it returns now that the report is out
            }
        }
    }

    private static int runAndReport(ClientOptions options, PrintWriter out, PrintWriter err, CompletableFuture<Void> stop)
            throws InterruptedException {
        final RunReport report;
        try {
            report = DemoClient.run(options, out, stop);
        } catch (ClientException e) {
            err.println("demo-client: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (report.interrupted() != null) {
            err.println(String.format(Locale.ROOT, "demo-client: interrupted with %d request(s) in flight; %d not sent",
                    report.interrupted().inFlight(), report.notSent()));
            err.flush();
        }
        if (report.disconnect() != null) {
            err.println(String.format(Locale.ROOT, "demo-client: lost the connection to %s (%s) with %d request(s) in flight; %d not sent",
                    options.bootstrap(), report.disconnect().reason(), report.disconnect().inFlight(), report.notSent()));
            err.flush();
        }
        out.print(ReportRenderer.summary(report));
        out.flush();
        long noResponse = report.count(Outcome.NO_RESPONSE);
        if (noResponse > 0) {
            err.println(String.format(Locale.ROOT, "demo-client: %d request(s) got no response within %d ms (--timeout-ms + --grace-ms)",
                    noResponse, options.responseDeadlineMs()));
            err.flush();
        }
        return report.interrupted() != null ? EXIT_INTERRUPTED : report.complete() ? 0 : 1;
    }

    private int consume(ClientOptions options, ConsumeOptions consume) throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        final DemoClient.WithConsumer run;
        try {
            run = DemoClient.consume(options, consume, mode == Mode.both, out);
        } catch (ClientException e) {
            err.println("demo-client: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (run.produced() != null) {
            out.print(ReportRenderer.summary(run.produced()));
        }
        out.print(ConsumeRenderer.summary(run.consumed()));
        out.flush();
        if (run.consumed().disconnect() != null) {
            err.println("demo-client: the consumer lost the connection to " + options.bootstrap() + " (" + run.consumed().disconnect() + ")");
            err.flush();
        }
        return run.consumed().disconnect() == null && (run.produced() == null || run.produced().complete()) ? 0 : 1;
    }

    private int groupConsume(ClientOptions options) throws InterruptedException {
        require(!group.isEmpty(), "--group must not be empty");
        require(consumers >= 1, "--consumers must be at least 1, but was " + consumers);
        require(crashAfterMs >= 0, "--crash-after-ms must be >= 0, but was " + crashAfterMs);
        require(consumeMs >= 0, "--consume-ms must be >= 0, but was " + consumeMs);
        try {
            return GroupConsume.run(options, group, consumers, consumeMs, crashAfterMs, spec.commandLine().getOut());
        } catch (ClientException e) {
            spec.commandLine().getErr().println("demo-client: " + e.getMessage());
            return 1;
        }
    }

    /** The consumer's options, or a {@link ParameterException} naming the bad one. */
    ConsumeOptions consumeOptions() {
        require(fetchMinBytes >= 0, "--fetch-min-bytes must be >= 0, but was " + fetchMinBytes);
        require(fetchMaxWaitMs >= 0, "--fetch-max-wait-ms must be >= 0, but was " + fetchMaxWaitMs);
        require(fetchMaxBytes >= 1, "--fetch-max-bytes must be at least 1, but was " + fetchMaxBytes);
        require(from.equals("earliest") || from.equals("latest"), "--from must be 'earliest' or 'latest', but was '" + from + "'");
        require(consumeMs >= 0, "--consume-ms must be >= 0, but was " + consumeMs);
        require(drainMs >= 0, "--drain-ms must be >= 0, but was " + drainMs);
        return new ConsumeOptions(fetchMinBytes, fetchMaxWaitMs, fetchMaxBytes, from.equals("earliest"), consumeMs, drainMs);
    }

    /** The options as a {@link ClientOptions}, or a {@link ParameterException} naming the bad one. */
    ClientOptions options() {
        require(!topic.isEmpty(), "--topic must not be empty");
        require(requests >= 0, "--requests must be 0 (until stopped) or more, but was " + requests);
        require(Double.isFinite(rate) && rate >= 0, "--rate must be 0 (no limit) or a positive number of requests/s, but was "
                + (Double.isFinite(rate) ? BigDecimal.valueOf(rate).stripTrailingZeros().toPlainString() : rate));
        require(concurrency >= 1, "--concurrency must be at least 1, but was " + concurrency);
        require(timeoutMs >= 0, "--timeout-ms must be >= 0, but was " + timeoutMs);
        require(recordSize >= 0 && recordSize <= MAX_RECORD_SIZE,
                "--record-size must be 0.." + MAX_RECORD_SIZE + " bytes, but was " + recordSize);
        require(graceMs >= 0, "--grace-ms must be >= 0, but was " + graceMs);
        require(connectTimeoutMs >= 1, "--connect-timeout-ms must be at least 1, but was " + connectTimeoutMs);
        return new ClientOptions(bootstrap, topic, requests, rate, concurrency, acks, timeoutMs, recordSize, graceMs, connectTimeoutMs);
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    /** {@code HOST:PORT}. */
    static final class EndpointConverter implements CommandLine.ITypeConverter<Endpoint> {
        @Override
        public Endpoint convert(String value) {
            try {
                return Endpoint.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code -1}, {@code all}, {@code 1} or {@code 0}. */
    static final class AcksConverter implements CommandLine.ITypeConverter<Short> {
        @Override
        public Short convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "-1", "all" -> (short) -1;
                case "1" -> (short) 1;
                case "0" -> (short) 0;
                default -> throw new CommandLine.TypeConversionException("expected -1 (or all), 1 or 0, but was '" + value + "'");
            };
        }
    }
}
