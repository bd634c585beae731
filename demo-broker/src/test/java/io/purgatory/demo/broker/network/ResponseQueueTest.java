package io.purgatory.demo.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * A response that cannot be built or serialized never leaves its slot empty: the responses before
 * it are written, then the connection closes; nothing after it is written. The event loop's time
 * writing responses is told to the connection's client.
 */
class ResponseQueueTest {
    /** The queue's owner, as {@link KafkaRequestHandler} is: writes what is ready when told. */
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter() {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event == KafkaRequestHandler.ConnectionEvent.RESPONSE_READY) {
                queue.writeReady();
            }
        }
    });
    private final ResponseQueue queue = new ResponseQueue(channel, 1 << 20);

    @Test
    void aResponseThatDoesNotSerializeClosesTheConnectionAfterTheResponsesBeforeIt() {
        ResponseQueue.Slot first = queue.reserve(header(1));
        ResponseQueue.Slot unserializable = queue.reserve(header(2));
        ResponseQueue.Slot after = queue.reserve(header(3));

        unserializable.send(metadata("x".repeat(40_000))); // longer than a protocol string can be
        after.send(metadata("fine"));
        channel.runPendingTasks();
        assertNull(channel.readOutbound(), "waits for the first response");
        assertTrue(channel.isOpen());

        first.send(metadata("fine"));
        channel.runPendingTasks();

        assertEquals(List.of(1), writtenCorrelationIds());
        assertFalse(channel.isOpen(), "closed instead of waiting forever on the empty slot");
        assertEquals(0, queue.inFlight());
    }

    @Test
    void aFailedResponseClosesTheConnectionOnceTheOnesBeforeItAreWritten() {
        ResponseQueue.Slot first = queue.reserve(header(1));
        ResponseQueue.Slot failed = queue.reserve(header(2));

        failed.fail(new IllegalStateException("could not build the response"));
        channel.runPendingTasks();
        assertTrue(channel.isOpen());
        first.send(metadata("fine"));
        channel.runPendingTasks();

        assertEquals(List.of(1), writtenCorrelationIds());
        assertFalse(channel.isOpen());
    }

    @Test
    void theEventLoopsTimeWritingResponsesIsToldToTheConnectionsClient() {
        AtomicLong eventLoopCpu = new AtomicLong();
        List<Long> told = new ArrayList<>();
        List<Long> bytesTold = new ArrayList<>();
        EmbeddedChannel writing = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                eventLoopCpu.addAndGet(((ByteBuf) msg).readableBytes()); // writing takes a nanosecond a byte
                ctx.write(msg, promise);
            }
        });
        ResponseQueue timed = new ResponseQueue(writing, 1 << 20, MemoryBudget.unbounded(), eventLoopCpu::get, (cpuNanos, bytes) -> {
            told.add(cpuNanos);
            bytesTold.add(bytes);
        });
        writing.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                timed.writeReady();
            }
        });
        ResponseQueue.Slot small = timed.reserve(header(1));
        ResponseQueue.Slot large = timed.reserve(header(2));

        large.send(metadata("x".repeat(30_000)));
        writing.runPendingTasks();
        assertEquals(List.of(), told, "nothing written yet: it waits for the first response");
        small.send(metadata("fine"));
        writing.runPendingTasks();

        ByteBuf first = writing.readOutbound();
        ByteBuf second = writing.readOutbound();
        long written = first.readableBytes() + second.readableBytes();
        assertEquals(List.of(written), told, "both written in one go, their time told once");
        assertEquals(List.of(written), bytesTold, "and their bytes");
        first.release();
        second.release();
    }

    private List<Integer> writtenCorrelationIds() {
        List<Integer> ids = new java.util.ArrayList<>();
        for (ByteBuf out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            ids.add(out.getInt(0));
            out.release();
        }
        return ids;
    }

    private static RequestHeader header(int correlationId) {
        return new RequestHeader(ApiKeys.METADATA, (short) 12, "test", correlationId);
    }

    private static MetadataResponse metadata(String topic) {
        MetadataResponseData data = new MetadataResponseData();
        data.topics().add(new MetadataResponseTopic().setName(topic));
        return new MetadataResponse(data, (short) 12);
    }
}
