package io.purgatory.demo.broker.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's live feed as server-sent events: {@link #tick()} takes a {@link Sampler sample}
 * each second, keeps the last {@code historySize} of them and sends it to every subscriber as an
 * {@code event: sample}; a new subscriber first gets the kept ones as one {@code event: history}
 * (a JSON array), so its charts start with the last few minutes.
 *
 * <p>A subscriber that does not read (its channel stays unwritable until the next tick) is
 * closed, so a slow client holds at most the channel's high water mark of unsent bytes; an
 * {@code EventSource} reconnects by itself.
 *
 * <p>Not thread-safe: confined to the HTTP event loop (its single thread runs the ticks and every
 * HTTP channel), which guards the history and the subscriber set.
 */
public final class EventStream {
    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);

    private final Sampler sampler;
    private final int historySize;
    private final ArrayDeque<String> history = new ArrayDeque<>();
    private final Set<Channel> subscribers = new HashSet<>();

    EventStream(Sampler sampler, int historySize) {
        this.sampler = sampler;
        this.historySize = historySize;
        history.add(sampler.sample());
    }

    /** The latest sample, as JSON. */
    String latest() {
        return history.getLast();
    }

    /** Takes a sample and sends it to every subscriber. */
    void tick() {
        String sample = sampler.sample();
        history.add(sample);
        while (history.size() > historySize) {
            history.removeFirst();
        }
        byte[] event = ("event: sample\ndata: " + sample + "\n\n").getBytes(StandardCharsets.UTF_8);
        for (Channel subscriber : Set.copyOf(subscribers)) {
            if (subscriber.isWritable()) {
                subscriber.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(event)));
            } else {
                LOG.debug("closing event stream to {}: it does not read", subscriber.remoteAddress());
                subscriber.close();
            }
        }
    }

    /** Answers {@code GET /events} on {@code ctx}'s channel: the response head, the history, then a sample each tick. */
    void subscribe(ChannelHandlerContext ctx) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        ctx.write(head);
        StringBuilder first = new StringBuilder("retry: 1000\nevent: history\ndata: [");
        first.append(String.join(",", history)).append("]\n\n");
        ByteBuf bytes = Unpooled.copiedBuffer(first, StandardCharsets.UTF_8);
        ctx.writeAndFlush(new DefaultHttpContent(bytes)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        Channel channel = ctx.channel();
        subscribers.add(channel);
        channel.closeFuture().addListener(closed -> subscribers.remove(channel));
    }
}
