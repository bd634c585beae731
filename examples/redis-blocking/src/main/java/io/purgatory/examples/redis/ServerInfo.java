package io.purgatory.examples.redis;

import io.purgatory.LatencyHistogram;
import io.purgatory.PurgatoryMetrics;
import java.util.Locale;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * INFO's text, in Redis's form ({@code # Section} lines, then {@code name:value} lines), with
 * Redis's names where Redis has the figure ({@code connected_clients}, {@code blocked_clients},
 * {@code total_commands_processed}...) and a {@code # Handoff} section for the hand-off the blocking
 * pops wait in. Thread-safe: it reads thread-safe counters.
 */
final class ServerInfo {

    /** The Redis version whose commands and replies this server follows, told to clients in HELLO and INFO. */
    static final String REDIS_VERSION = "7.0.15";

    private final ServerStats stats;
    private final PurgatoryMetrics handOff;
    private final Keyspace keyspace;
    private final IntSupplier port;

    ServerInfo(ServerStats stats, PurgatoryMetrics handOff, Keyspace keyspace, IntSupplier port) {
        this.stats = stats;
        this.handOff = handOff;
        this.keyspace = keyspace;
        this.port = port;
    }

    /**
     * INFO's text: every section, or only the one named (case aside), as {@code INFO clients} asks;
     * an unknown name gives nothing, as in Redis.
     */
    @SuppressWarnings("StringSplitter") // splits our own text, whose sections are never empty
    String text(@Nullable String section) {
        String all = text();
        if (section == null || section.equalsIgnoreCase("all") || section.equalsIgnoreCase("everything")
                || section.equalsIgnoreCase("default")) {
            return all;
        }
        for (String part : all.split("\r\n\r\n")) {
            if (part.toLowerCase(Locale.ROOT).startsWith("# " + section.toLowerCase(Locale.ROOT) + "\r\n")) {
                return part + "\r\n";
            }
        }
        return "";
    }

    private String text() {
        LatencyHistogram lateness = handOff.expiryLateness();
        return "# Server\r\n"
                + "redis_version:" + REDIS_VERSION + "\r\n"
                + "server_name:purgatory-redis-blocking\r\n"
                + "process_id:" + ProcessHandle.current().pid() + "\r\n"
                + "tcp_port:" + port.getAsInt() + "\r\n"
                + "uptime_in_seconds:" + (System.nanoTime() - stats.startNanos) / 1_000_000_000L + "\r\n"
                + "\r\n# Clients\r\n"
                + "connected_clients:" + stats.connectedClients.get() + "\r\n"
                + "blocked_clients:" + handOff.delayed() + "\r\n"
                + "\r\n# Stats\r\n"
                + "total_connections_received:" + stats.connectionsReceived.sum() + "\r\n"
                + "total_commands_processed:" + stats.commandsProcessed.sum() + "\r\n"
                + "\r\n# Handoff\r\n"
                + "handoff_name:" + handOff.name() + "\r\n"
                + "handoff_waiting:" + handOff.delayed() + "\r\n"
                + "handoff_handed_after_wait:" + stats.handedOff.sum() + "\r\n"
                + "handoff_timed_out:" + stats.timedOut.sum() + "\r\n"
                + "handoff_timeout_lateness_p50_ms:" + lateness.valueAtPercentileMs(50) + "\r\n"
                + "handoff_timeout_lateness_p99_ms:" + lateness.valueAtPercentileMs(99) + "\r\n"
                + "\r\n# Keyspace\r\n"
                + (keyspace.size() == 0 ? "" : "db0:keys=" + keyspace.size() + ",expires=0,avg_ttl=0\r\n");
    }
}
