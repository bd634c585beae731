package io.purgatory.demo.broker.metrics;

import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the Kafka listener has seen, for the dashboard and {@code /metrics}: open connections,
 * bytes read and written, requests by API, error codes in responses by API (a produce response
 * counts one code per partition, as {@link org.apache.kafka.common.requests.AbstractResponse#errorCounts()} does; {@code NONE}
 * included), and fetch responses by {@link FetchOutcome}. The network layer counts connections,
 * bytes, requests and response codes; the fetch handler counts fetch outcomes. Plain counters:
 * no Netty here.
 *
 * <p>Thread-safe: every count is a {@link LongAdder}; the request and error maps are concurrent and
 * only grow; the fetch outcome map is filled in the constructor and never changes.
 */
public final class BrokerStats {
    /** A response error code of one API. */
    public record ApiError(ApiKeys api, Errors error) {
    }

    /**
     * How a fetch response went, one outcome per response: {@link #ERROR} if it carries an error
     * code (top-level, or on any partition), else {@link #DATA} if any partition has records, else
     * one of the two empty outcomes.
     */
    public enum FetchOutcome {
        /** Records for at least one partition, at once or after waiting. */
        DATA("data"),
        /** No records: the fetch was parked and {@code max.wait.ms} passed before {@code min.bytes} arrived. */
        EMPTY_MAX_WAIT("empty_max_wait"),
        /** No records, answered without waiting: {@code max.wait.ms} 0, or {@code min.bytes} 0 or less. */
        EMPTY_AT_ONCE("empty_at_once"),
        /** An error code in the response, top-level or on a partition, with or without records elsewhere. */
        ERROR("error");

        private final String label;

        FetchOutcome(String label) {
            this.label = label;
        }

        /** The outcome's name in {@code /metrics}: {@code data}, {@code empty_max_wait}, {@code empty_at_once}, {@code error}. */
        public String label() {
            return label;
        }
    }

    private final LongAdder connections = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final Map<ApiKeys, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<ApiError, LongAdder> responseErrors = new ConcurrentHashMap<>();
    private final Map<FetchOutcome, LongAdder> fetchResponses;

    public BrokerStats() {
        Map<FetchOutcome, LongAdder> outcomes = new EnumMap<>(FetchOutcome.class);
        for (FetchOutcome outcome : FetchOutcome.values()) {
            outcomes.put(outcome, new LongAdder());
        }
        this.fetchResponses = Collections.unmodifiableMap(outcomes);
    }

    /** Connections open now. */
    public long connections() {
        return connections.sum();
    }

    /** Bytes read from clients, length prefixes included. */
    public long bytesIn() {
        return bytesIn.sum();
    }

    /** Bytes written to clients, length prefixes included. */
    public long bytesOut() {
        return bytesOut.sum();
    }

    /** Requests that parsed, by API, in API key order. */
    public Map<ApiKeys, Long> requests() {
        Map<ApiKeys, Long> copy = new TreeMap<>();
        requests.forEach((api, count) -> copy.put(api, count.sum()));
        return copy;
    }

    /** Error codes sent in responses, by API and code. */
    public Map<ApiError, Long> responseErrors() {
        Map<ApiError, Long> copy = new HashMap<>();
        responseErrors.forEach((key, count) -> copy.put(key, count.sum()));
        return copy;
    }

    /** How many responses of {@code api} carried {@code error} (per partition, for produce). */
    public long responseErrors(ApiKeys api, Errors error) {
        LongAdder count = responseErrors.get(new ApiError(api, error));
        return count == null ? 0 : count.sum();
    }

    /** Fetch responses sent with {@code outcome}. */
    public long fetchResponses(FetchOutcome outcome) {
        return fetchResponses.get(outcome).sum();
    }

    /** A connection opened. */
    public void onConnectionOpened() {
        connections.increment();
    }

    /** A connection closed. */
    public void onConnectionClosed() {
        connections.decrement();
    }

    /** Bytes read from a client, length prefixes included. */
    public void onBytesRead(long bytes) {
        bytesIn.add(bytes);
    }

    /** Bytes written to a client, length prefixes included. */
    public void onBytesWritten(long bytes) {
        bytesOut.add(bytes);
    }

    /** A request of {@code api} parsed. */
    public void onRequest(ApiKeys api) {
        requests.computeIfAbsent(api, key -> new LongAdder()).increment();
    }

    /** A fetch response was sent with {@code outcome}. */
    public void onFetchResponse(FetchOutcome outcome) {
        fetchResponses.get(outcome).increment();
    }

    /**
     * A response of {@code api} was sent carrying these error codes, each this many times
     * ({@link org.apache.kafka.common.requests.AbstractResponse#errorCounts()}).
     */
    public void onResponse(ApiKeys api, Map<Errors, Integer> errorCounts) {
        errorCounts.forEach((error, count) -> responseErrors.computeIfAbsent(new ApiError(api, error), key -> new LongAdder()).add(count));
    }
}
