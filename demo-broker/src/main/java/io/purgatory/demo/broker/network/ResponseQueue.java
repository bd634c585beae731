package io.purgatory.demo.broker.network;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.SocketChannel;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.server.Responder;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's responses in the order its requests arrived, as the Kafka protocol requires,
 * although a parked produce may be answered long after a later {@code acks=1} one. A request
 * reserves a slot when it arrives; its response is serialised in {@link Slot#send} on whichever
 * thread answers, and the slot is filled on the event loop, which then fires
 * {@link KafkaRequestHandler.ConnectionEvent#RESPONSE_READY} down the pipeline; its owner, the
 * connection's {@link KafkaRequestHandler}, calls {@link #writeReady}, the one place responses are
 * written. Filling always goes through the event loop's task queue, never inline, so a response
 * given while a request is being handled cannot re-enter the handler.
 *
 * <p>When the connection closes, {@link #abandon} completes the parked produces, fetches and
 * delete-records its slots wait for, so that they leave the purgatory at once instead of at their
 * timeout, and so does a request that parks after the close; responses that come after that are
 * dropped without being serialised.
 *
 * <p>Memory: a response counts its bytes in the broker's {@link MemoryBudget}
 * ({@link MemoryBudget.Kind#IN_FLIGHT}) from when its slot is filled until it is written (the write
 * completes or fails) or dropped with the connection.
 *
 * <p>Cost: the CPU time the event loop spends writing and flushing responses (copying them to the
 * socket's buffer and the kernel's send, which on loopback includes the receiving side's) is told to
 * the connection's {@link ConnectionQuota}, as Kafka counts its network threads' time in a client's
 * request quota, and so are the bytes written, for the connection's share of the link. What a later flush writes, when the socket
 * could not take a response at once, is written by Netty when the socket has room and is not counted.
 *
 * <p>A response that cannot be built or serialized ({@link Slot#fail}) or written closes the
 * connection once the responses before it are written: a slot is never left empty while later ones
 * wait behind it.
 *
 * <p>Thread-safe by confinement: every method but {@link Slot#send} and {@link Slot#noResponse}
 * runs on the channel's event loop, and so does every change to the queue and its slots;
 * {@code abandoned} is volatile, written on the event loop; {@link Slot#awaits} hands its callback to
 * the event loop.
 */
public final class ResponseQueue {
    /** How long a half-closed connection waits for the client to close its side. */
    static final long LINGER_MS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(ResponseQueue.class);

    private final Channel channel;
    private final int maxResponseBytes;
    private final MemoryBudget budget;
    private final LongSupplier cpuClock;
    private final Writes writes;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>(); // event loop only
    private ChannelFuture lastWrite; // event loop only
    private boolean closing; // event loop only
    private volatile boolean abandoned; // written on the event loop

    /** @param maxResponseBytes a larger response is not serialized: its slot {@link Slot#fail fails} */
    ResponseQueue(Channel channel, int maxResponseBytes) {
        this(channel, maxResponseBytes, MemoryBudget.unbounded(), () -> 0, (cpuNanos, bytes) -> { });
    }

    /**
     * As above, responses counted in {@code budget} until written, and what writing them took told
     * to {@code writes}.
     *
     * @param cpuClock the CPU time of the current thread, in nanoseconds ({@link ThrottlingResponder#THREAD_CPU})
     * @param writes told what each write took; on the event loop
     */
    ResponseQueue(Channel channel, int maxResponseBytes, MemoryBudget budget, LongSupplier cpuClock, Writes writes) {
        this.channel = channel;
        this.maxResponseBytes = maxResponseBytes;
        this.budget = budget;
        this.cpuClock = cpuClock;
        this.writes = writes;
    }

    /** Reserves the next response slot; on the event loop. */
    Slot reserve(RequestHeader header) {
        Slot slot = new Slot(header);
        slots.add(slot);
        return slot;
    }

    /**
     * Reserves a slot that closes the connection once the responses before it are written (a
     * request this broker refuses to handle); on the event loop.
     */
    Slot reserveClose() {
        Slot slot = new Slot(-1, (short) 0, (short) 0);
        slots.add(slot);
        slot.closeConnection();
        return slot;
    }

    /** Requests whose responses have not been written yet; on the event loop. */
    int inFlight() {
        return slots.size();
    }

    /**
     * Ends the connection once every response written so far has been flushed, without losing them:
     * it half-closes (FIN), so the client reads every response and then end-of-stream, and closes the
     * channel when the client closes its side or after {@value #LINGER_MS} ms. Closing at once could
     * send a reset instead (a request still arriving finds the socket gone), and a reset makes the
     * client's kernel drop responses it had not read yet. Slots still empty are abandoned; frames that
     * arrive from now on are read and dropped ({@link #isClosing()}). On the event loop.
     */
    void closeAfterFlush() {
        closing = true;
        if (lastWrite == null || lastWrite.isDone()) {
            halfCloseThenLinger();
        } else {
            lastWrite.addListener(written -> halfCloseThenLinger());
        }
    }

    /**
     * The connection has closed: completes every parked operation a slot still waits for (its
     * response goes nowhere) and drops the slots. On the event loop.
     */
    void abandon() {
        abandoned = true;
        List<Runnable> awaited = new ArrayList<>();
        for (Slot slot : slots) {
            if (slot.awaited != null) {
                awaited.add(slot.awaited);
            }
            if (slot.bytes != null) {
                budget.release(MemoryBudget.Kind.IN_FLIGHT, slot.bytes.remaining());
            }
        }
        slots.clear();
        awaited.forEach(Runnable::run);
    }

    /** Whether {@link #closeAfterFlush} was called: requests are no longer handled. On the event loop. */
    boolean isClosing() {
        return closing;
    }

    private void halfCloseThenLinger() {
        if (!(channel instanceof SocketChannel socket) || !channel.isActive()) {
            channel.close();
            return;
        }
        socket.shutdownOutput().addListener(shut ->
                channel.eventLoop().schedule(() -> channel.close(), LINGER_MS, TimeUnit.MILLISECONDS));
    }

    /**
     * Writes the responses of the filled slots at the head of the queue, in order, and flushes; the
     * one place responses are written; tells the CPU time and the bytes it took to {@code writes}. On the event loop.
     *
     * @return whether any slot left the queue (so more requests may be handled)
     */
    boolean writeReady() {
        long start = cpuClock.getAsLong();
        long bytes = 0;
        boolean wrote = false;
        boolean dequeued = false;
        boolean failed = false;
        while (!failed && !slots.isEmpty() && slots.peek().done) {
            Slot head = slots.poll();
            dequeued = true;
            failed = head.failed;
            if (head.bytes != null) {
                int size = head.bytes.remaining();
                bytes += size;
                lastWrite = channel.write(Unpooled.wrappedBuffer(head.bytes)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE)
                        .addListener(written -> budget.release(MemoryBudget.Kind.IN_FLIGHT, size));
                wrote = true;
            }
        }
        if (wrote) {
            channel.flush();
            writes.took(cpuClock.getAsLong() - start, bytes);
        }
        if (failed) {
            abandon(); // the slots behind it get no response: their parked produces leave the purgatory now
            closeAfterFlush();
        }
        return dequeued;
    }

    /** What writing responses took, told on the event loop. */
    @FunctionalInterface
    interface Writes {
        /** The event loop spent {@code cpuNanos} of CPU time writing {@code bytes} of responses. */
        void took(long cpuNanos, long bytes);
    }

    /** One request's place in the response order. */
    final class Slot implements Responder {
        private final int correlationId; // the request's header is not kept: a parked produce's slot lives long
        private final short apiVersion;
        private final short responseHeaderVersion;
        private ByteBuffer bytes; // event loop only
        private boolean done; // event loop only
        private boolean failed; // event loop only: no response, the connection closes here
        private Runnable awaited; // event loop only: completes the parked operation the slot waits for

        private Slot(RequestHeader header) {
            this(header.correlationId(), header.apiVersion(), header.apiKey().responseHeaderVersion(header.apiVersion()));
        }

        private Slot(int correlationId, short apiVersion, short responseHeaderVersion) {
            this.correlationId = correlationId;
            this.apiVersion = apiVersion;
            this.responseHeaderVersion = responseHeaderVersion;
        }

        /**
         * Serializes {@code response} in the request's version; one that does not serialize, or whose
         * size is past the limit (measured before any buffer is allocated), {@link #fail fails} the slot.
         */
        @Override
        public void send(AbstractResponse response) {
            if (abandoned) {
                return;
            }
            ResponseHeader responseHeader = new ResponseHeader(correlationId, responseHeaderVersion);
            final ByteBuffer serialized;
            try {
                ObjectSerializationCache cache = new ObjectSerializationCache();
                long size = (long) responseHeader.data().size(cache, responseHeader.headerVersion()) + response.data().size(cache, apiVersion);
                if (size > maxResponseBytes) {
                    throw new IllegalStateException("the response takes " + size + " bytes, more than --max-response-bytes " + maxResponseBytes);
                }
                serialized = RequestUtils.serialize(responseHeader.data(), responseHeader.headerVersion(), response.data(), apiVersion);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            fill(serialized, false);
        }

        /** Sends {@code response} as version 0, whatever the request's version (ApiVersions fallback). */
        void sendAsVersionZero(AbstractResponse response) {
            ResponseHeader responseHeader = new ResponseHeader(correlationId, (short) 0);
            fill(RequestUtils.serialize(responseHeader.data(), (short) 0, response.data(), (short) 0), false);
        }

        @Override
        public void noResponse() {
            fill(null, false);
        }

        /** The responses before this one are written, then the connection is closed as in {@link #closeAfterFlush}. */
        @Override
        public void fail(RuntimeException cause) {
            LOG.warn("closing connection from {}: no response (v{}, correlation id {}) could be built: {}", channel.remoteAddress(),
                    apiVersion, correlationId, cause.toString());
            closeConnection();
        }

        /** No response: the connection closes here, once the responses before this one are written; the caller logs why. */
        void closeConnection() {
            fill(null, true);
        }

        /**
         * On the event loop, like every change to the slot: so the connection's close
         * ({@link #abandon}) either runs before it, and {@code completeNow} runs here, or after it,
         * and finds it.
         */
        @Override
        public void awaits(Runnable completeNow) {
            try {
                channel.eventLoop().execute(() -> {
                    if (abandoned) {
                        completeNow.run();
                    } else if (!done) {
                        awaited = completeNow;
                    }
                });
            } catch (RejectedExecutionException shutDown) {
                completeNow.run(); // the event loop has stopped: the connection is gone
            }
        }

        /** Fills the slot on the event loop, always through its task queue, and tells the pipeline. */
        private void fill(ByteBuffer serialized, boolean failure) {
            try {
                channel.eventLoop().execute(() -> {
                    if (serialized != null && !abandoned) { // after the close nothing is written, nor counted
                        budget.charge(MemoryBudget.Kind.IN_FLIGHT, serialized.remaining());
                        bytes = serialized;
                    }
                    failed = failure;
                    done = true;
                    channel.pipeline().fireUserEventTriggered(KafkaRequestHandler.ConnectionEvent.RESPONSE_READY);
                });
            } catch (RejectedExecutionException shutDown) {
                // the event loop has stopped: the connection is gone and so is whoever waited
            }
        }
    }
}
