package io.purgatory.demo.broker;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.purgatory.DelayedOperation;
import io.netty.channel.ChannelPromise;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the Kafka listener has seen, for the dashboard and {@code /metrics}: open connections,
 * bytes read and written, requests by API, and error codes in responses by API (a produce response
 * counts one code per partition, as {@link AbstractResponse#errorCounts()} does; {@code NONE}
 * included), and fetch responses by {@link FetchOutcome}. Counted at four points:
 * {@link #channelCounter()} in each connection's pipeline, {@link #onRequest} when a request has
 * parsed, {@link #counting} around its responder, {@link #onFetchResponse} where
 * {@link FetchHandler} sends a fetch response.
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
    private final ChannelCounter channelCounter = new ChannelCounter();

    BrokerStats() {
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

    /** The one handler, shared by every connection, that counts connections and bytes; first in the pipeline. */
    ChannelDuplexHandler channelCounter() {
        return channelCounter;
    }

    void onRequest(ApiKeys api) {
        requests.computeIfAbsent(api, key -> new LongAdder()).increment();
    }

    void onFetchResponse(FetchOutcome outcome) {
        fetchResponses.get(outcome).increment();
    }

    /** Wraps a responder so that the error codes of the response it sends are counted. */
    KafkaApis.Responder counting(ApiKeys api, KafkaApis.Responder responder) {
        return new KafkaApis.Responder() {
            @Override
            public void send(AbstractResponse response) {
                response.errorCounts().forEach((error, count) ->
                        responseErrors.computeIfAbsent(new ApiError(api, error), key -> new LongAdder()).add(count));
                responder.send(response);
            }

            @Override
            public void noResponse() {
                responder.noResponse();
            }

            @Override
            public void fail(RuntimeException cause) {
                responder.fail(cause);
            }

            @Override
            public void awaits(DelayedOperation operation) {
                responder.awaits(operation);
            }
        };
    }

    /** Counts connections and bytes; stateless apart from the adders it adds to, so one instance serves every channel. */
    @Sharable
    private final class ChannelCounter extends ChannelDuplexHandler {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connections.increment();
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            connections.decrement();
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf) {
                bytesIn.add(((ByteBuf) msg).readableBytes());
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf) {
                bytesOut.add(((ByteBuf) msg).readableBytes());
            }
            ctx.write(msg, promise);
        }
    }
}
