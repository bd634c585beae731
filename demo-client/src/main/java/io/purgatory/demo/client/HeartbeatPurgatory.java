package io.purgatory.demo.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The broker's heartbeat purgatory at one instant, as its dashboard state ({@code /api/state})
 * shows it: the purgatory's {@code PurgatoryMetrics.Snapshot}, read with Jackson. A figure that is
 * missing reads {@code -1}. Immutable.
 *
 * @param parked {@code delayed}: DelayedHeartbeats parked now
 * @param watches {@code watched}: watch-list entries, unpurged ones included
 * @param completed {@code completed}: heartbeats completed so far
 */
record HeartbeatPurgatory(double parked, double watches, double completed) {
    /** Not known: no {@code --state-url}. */
    static final HeartbeatPurgatory UNKNOWN = new HeartbeatPurgatory(-1, -1, -1);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Configured once, then only used: thread-safe. */
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAME = "heartbeat";

    /** Reads {@code state}; {@link #UNKNOWN} when it is null. */
    static HeartbeatPurgatory read(URI state) throws IOException, InterruptedException {
        if (state == null) {
            return UNKNOWN;
        }
        return parse(HTTP.send(HttpRequest.newBuilder(state).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    /** The heartbeat purgatory in the broker's JSON state: the entry named {@value #NAME} of {@code purgatories}. */
    static HeartbeatPurgatory parse(String state) throws IOException {
        for (JsonNode purgatory : JSON.readTree(state).path("purgatories")) {
            if (NAME.equals(purgatory.path("name").asText())) {
                return new HeartbeatPurgatory(purgatory.path("delayed").asDouble(-1), purgatory.path("watched").asDouble(-1),
                        purgatory.path("completed").asDouble(-1));
            }
        }
        return UNKNOWN;
    }
}
