package io.purgatory.benchmarks.redis;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load generator for blocking pops, the same against Redis and against the Redis-protocol
 * example, each server in its own process (give its pid: CPU and memory are read from /proc). Its
 * client is raw RESP2 over Netty ({@link RespConnections}), so it costs the same against both.
 *
 * <ul>
 * <li>{@code handoff}: opens {@code --clients} connections, each parked in {@code BLPOP key 0} over
 *     {@code --keys} keys (client i on key i mod keys), reads the server's resident memory before
 *     and with them parked, then one pusher connection RPUSHes {@code --warmup} and then
 *     {@code --pushes} values (round the keys, at most {@code --window} pushes unanswered), each
 *     value its send time; a popper that gets one records push-to-reply latency and parks again.
 *     Reports hand-offs/s, latency p50/p99/p99.9, server CPU per hand-off, memory per parked client.
 * <li>{@code timeouts}: {@code --clients} connections each send {@code BLPOP key 1} (no pushes);
 *     reports how late the timeout answers come after each client's own second (from when its BLPOP
 *     was written to the socket to when the answer was read), p50/p99/max, in the
 *     last of {@code --rounds} rounds (the first warm the server up).
 * </ul>
 * One line of {@code name=value} results on standard output. Run:
 * {@code java -cp benchmarks/target/benchmarks.jar io.purgatory.benchmarks.redis.BlockingPopLoad --help}.
 * Not thread-safe; a command-line main (its counters are atomic: replies come on the client's event loops).
 */
@Command(name = "blocking-pop-load", mixinStandardHelpOptions = true, showDefaultValues = true, usageHelpWidth = 110,
        description = "Parked BLPOPs and a pusher (or timeouts) against a Redis-protocol server in another process.")
public final class BlockingPopLoad implements Callable<Integer> {

    private static final AttributeKey<String> KEY = AttributeKey.valueOf("key");
    private static final AttributeKey<Long> SENT = AttributeKey.valueOf("sent");

    @Option(names = "--scenario", required = true, description = "handoff or timeouts.")
    private String scenario;

    @Option(names = "--port", required = true, description = "The server's port (on 127.0.0.1).")
    private int port;

    @Option(names = "--pid", required = true, description = "The server's process id, for its CPU time and resident memory.")
    private long pid;

    @Option(names = "--label", description = "The server's name in the result line.")
    private String label = "server";

    @Option(names = "--clients", description = "Parked clients, one connection each.")
    private int clients = 10_000;

    @Option(names = "--keys", description = "Keys the clients block on.")
    private int keys = 1_000;

    @Option(names = "--pushes", description = "Measured pushes (handoff).")
    private int pushes = 200_000;

    @Option(names = "--warmup", description = "Pushes before the measured ones (handoff).")
    private int warmup = 50_000;

    @Option(names = "--window", description = "Pushes sent and not yet answered, at most (handoff).")
    private int window = 64;

    @Option(names = "--rounds", description = "Rounds of timeouts; the last is reported (timeouts).")
    private int rounds = 2;

    @Option(names = "--threads", description = "The client's event loops.")
    private int threads = 2;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BlockingPopLoad()).setParameterExceptionHandler((e, a) -> {
            e.getCommandLine().getErr().println("blocking-pop-load: " + e.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        }).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!scenario.equals("handoff") && !scenario.equals("timeouts")) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--scenario must be handoff or timeouts, not " + scenario);
        }
        ServerProcess server = new ServerProcess(pid);
        try (RespConnections connections = new RespConnections(new InetSocketAddress("127.0.0.1", port), threads)) {
            String result = scenario.equals("handoff") ? handOff(connections, server) : timeouts(connections);
            System.out.println("server=" + label + " scenario=" + scenario + " clients=" + clients + " keys=" + keys + " "
                    + result + " load=" + loadAverage());
        }
        return 0;
    }

    private String handOff(RespConnections connections, ServerProcess server) throws Exception {
        Histogram latency = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
        AtomicLong popped = new AtomicLong();
        Channel control = connections.open(1, (channel, reply) -> { }).get(0);
        long idleBytes = server.residentBytes();
        List<Channel> poppers = connections.open(clients, (channel, reply) -> {
            if (reply instanceof List<?> keyAndValue) {
                latency.recordValue(Math.max(0, System.nanoTime() - Long.parseLong((String) keyAndValue.get(1))));
                popped.incrementAndGet();
                RespConnections.send(channel, "BLPOP", channel.attr(KEY).get(), "0");
            } else {
                fail("a pop answered " + reply);
            }
        });
        for (int i = 0; i < poppers.size(); i++) {
            Channel popper = poppers.get(i);
            popper.attr(KEY).set("key:" + (i % keys));
            RespConnections.send(popper, "BLPOP", popper.attr(KEY).get(), "0");
        }
        waitForBlocked(connections, clients);
        long parkedBytes = server.residentBytes();

        push(connections, warmup, popped, 0);
        latency.reset();
        long cpuBefore = server.cpuNanos();
        long start = System.nanoTime();
        push(connections, pushes, popped, warmup);
        long elapsed = System.nanoTime() - start;
        long cpu = server.cpuNanos() - cpuBefore;
        control.close();
        for (Channel popper : poppers) {
            popper.close();
        }
        return String.format(Locale.ROOT, "handoffs=%d handoffs_per_s=%.0f p50_us=%d p99_us=%d p999_us=%d max_us=%d"
                + " cpu_us_per_handoff=%.2f rss_idle_mb=%.1f rss_parked_mb=%.1f bytes_per_parked=%d",
                pushes, pushes / (elapsed / 1e9), micros(latency, 50), micros(latency, 99), micros(latency, 99.9),
                latency.getMaxValue() / 1000, cpu / 1e3 / pushes, idleBytes / 1e6, parkedBytes / 1e6,
                (parkedBytes - idleBytes) / clients);
    }

    /** Pushes count values from one connection, window at a time, and returns once poppers have received them all. */
    private void push(RespConnections connections, int count, AtomicLong popped, long poppedBefore) throws Exception {
        AtomicLong sent = new AtomicLong();
        CompletableFuture<Void> allAnswered = new CompletableFuture<>();
        AtomicLong answered = new AtomicLong();
        Channel pusher = connections.open(1, (channel, reply) -> {
            if (!(reply instanceof Long)) {
                allAnswered.completeExceptionally(new IllegalStateException("RPUSH answered " + reply));
                return;
            }
            long n = sent.getAndIncrement();
            if (n < count) {
                RespConnections.send(channel, "RPUSH", "key:" + (n % keys), Long.toString(System.nanoTime()));
            }
            if (answered.incrementAndGet() == count) {
                allAnswered.complete(null);
            }
        }).get(0);
        pusher.eventLoop().execute(() -> {
            for (int i = 0; i < Math.min(window, count); i++) {
                long n = sent.getAndIncrement();
                RespConnections.send(pusher, "RPUSH", "key:" + (n % keys), Long.toString(System.nanoTime()));
            }
        });
        allAnswered.get(10, TimeUnit.MINUTES);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (popped.get() < poppedBefore + count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + (popped.get() - poppedBefore) + " of " + count + " pushes popped");
            }
            Thread.onSpinWait();
        }
        pusher.close();
    }

    private String timeouts(RespConnections connections) throws Exception {
        Histogram lateness = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
        AtomicLong answered = new AtomicLong();
        List<Channel> poppers = connections.open(clients, (channel, reply) -> {
            if (reply != RespConnections.NIL) {
                fail("a pop with no push answered " + reply);
            }
            long late = System.nanoTime() - channel.attr(SENT).get() - TimeUnit.SECONDS.toNanos(1);
            lateness.recordValue(Math.max(0, late));
            answered.incrementAndGet();
        });
        for (int round = 0; round < rounds; round++) {
            lateness.reset();
            answered.set(0);
            for (int i = 0; i < poppers.size(); i++) {
                Channel popper = poppers.get(i);
                // the clock starts when the BLPOP has left for the server, not when it was queued in the client
                RespConnections.send(popper, "BLPOP", "timeout:" + (i % keys), "1")
                        .addListener(written -> popper.attr(SENT).set(System.nanoTime()));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (answered.get() < clients && System.nanoTime() < deadline) {
                Thread.sleep(10); // a load tool waiting for its own clients, not a test
            }
            if (answered.get() < clients) {
                throw new IllegalStateException("only " + answered.get() + " of " + clients + " timeouts answered");
            }
        }
        for (Channel popper : poppers) {
            popper.close();
        }
        return String.format(Locale.ROOT, "timeout_ms=1000 late_p50_ms=%.1f late_p99_ms=%.1f late_max_ms=%.1f",
                lateness.getValueAtPercentile(50) / 1e6, lateness.getValueAtPercentile(99) / 1e6, lateness.getMaxValue() / 1e6);
    }

    /** Waits until the server's INFO says count clients are blocked. */
    private static void waitForBlocked(RespConnections connections, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        long blocked = -1;
        while (System.nanoTime() < deadline) {
            CompletableFuture<String> info = new CompletableFuture<>();
            Channel control = connections.open(1, (channel, reply) -> info.complete(String.valueOf(reply))).get(0);
            RespConnections.send(control, "INFO", "clients");
            for (String line : info.get(10, TimeUnit.SECONDS).split("\r\n")) {
                if (line.startsWith("blocked_clients:")) {
                    blocked = Long.parseLong(line.substring("blocked_clients:".length()));
                }
            }
            control.close();
            if (blocked == count) {
                return;
            }
            Thread.sleep(100); // polling another process's state
        }
        throw new IllegalStateException("blocked_clients stayed at " + blocked + ", not " + count);
    }

    /** A reply the run cannot go on from (an error, a refused connection): one line, exit code 1. */
    private static void fail(String message) {
        System.err.println("blocking-pop-load: " + message);
        System.exit(1);
    }

    private static long micros(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1000;
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }
}
