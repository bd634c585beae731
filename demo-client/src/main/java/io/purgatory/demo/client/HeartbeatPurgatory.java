package io.purgatory.demo.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;

/**
 * The broker's heartbeat purgatory at one instant, as its Prometheus {@code /metrics} shows it; a
 * series that is missing reads {@code -1}. Immutable.
 *
 * @param parked {@code purgatory_delayed_operations{purgatory="heartbeat"}}: DelayedHeartbeats parked now
 * @param watches {@code purgatory_watched_operations{purgatory="heartbeat"}}: watch-list entries, unpurged ones included
 * @param completed {@code purgatory_operations_completed_total{purgatory="heartbeat"}}
 */
record HeartbeatPurgatory(double parked, double watches, double completed) {
    /** Not known: no {@code --metrics-url}. */
    static final HeartbeatPurgatory UNKNOWN = new HeartbeatPurgatory(-1, -1, -1);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String LABEL = "{purgatory=\"heartbeat\"}";

    /** Scrapes {@code metrics}; {@link #UNKNOWN} when it is null. */
    static HeartbeatPurgatory scrape(URI metrics) throws IOException, InterruptedException {
        if (metrics == null) {
            return UNKNOWN;
        }
        return parse(HTTP.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    /** The heartbeat purgatory's series in Prometheus text exposition. */
    static HeartbeatPurgatory parse(String exposition) {
        return new HeartbeatPurgatory(value(exposition, "purgatory_delayed_operations" + LABEL).orElse(-1),
                value(exposition, "purgatory_watched_operations" + LABEL).orElse(-1),
                value(exposition, "purgatory_operations_completed_total" + LABEL).orElse(-1));
    }

    /** The value of {@code series} (name and labels as written) in Prometheus text exposition, if present. */
    static OptionalDouble value(String exposition, String series) {
        for (String line : exposition.split("\n", -1)) {
            if (line.startsWith(series + " ")) {
                return OptionalDouble.of(Double.parseDouble(line.substring(series.length() + 1).trim().split(" ", -1)[0])); // a timestamp may follow
            }
        }
        return OptionalDouble.empty();
    }
}
