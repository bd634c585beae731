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
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
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
 * <p>Its memory is bounded, whatever the broker holds: at most {@code historySize} samples and at most
 * {@code historyBudgetChars} characters of JSON in all, the oldest dropped first (the latest is
 * always kept; a sample is at most {@link Sampler#MAX_SAMPLE_CHARS}). A tick whose sample fails is
 * logged (at most once per {@value #WARNING_PERIOD_MS} ms, with a count) and skipped; the next one
 * runs.
 *
 * <p>Not thread-safe: confined to the HTTP event loop (its single thread runs the ticks and every
 * HTTP channel), which guards the history and the subscriber set.
 */
public final class EventStream {
    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);

    /** A failing tick is logged at most once per this period. */
    static final long WARNING_PERIOD_MS = 60_000;

    private final Supplier<String> sampler;
    private final ThrottledWarning failedTicks = new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime);
    private final int historySize;
    private final long historyBudgetChars;
    private long historyChars;
    private final ArrayDeque<String> history = new ArrayDeque<>();
    private final Set<Channel> subscribers = new HashSet<>();

    /** @param sampler a sample of now, as JSON ({@link Sampler#sample}) */
    EventStream(Supplier<String> sampler, int historySize, long historyBudgetChars) {
        this.sampler = sampler;
        this.historySize = historySize;
        this.historyBudgetChars = historyBudgetChars;
        keep(sampler.get());
    }

    /** Characters of JSON the history holds. Visible for testing. */
    long historyChars() {
        return historyChars;
    }

    /** Samples the history holds. Visible for testing. */
    int historySize() {
        return history.size();
    }

    private void keep(String sample) {
        history.add(sample);
        historyChars += sample.length();
        while (history.size() > 1 && (history.size() > historySize || historyChars > historyBudgetChars)) {
            historyChars -= history.removeFirst().length();
        }
    }

    /** The latest sample, as JSON. */
    String latest() {
        return history.getLast();
    }

    /** Takes a sample and sends it to every subscriber; a sample that fails is logged and skipped. */
    void tick() {
        final String sample;
        try {
            sample = sampler.get();
        } catch (RuntimeException e) {
            failedTicks.warn("dashboard sample failed, skipped (the next is taken in a second): " + e);
            return;
        }
        keep(sample);
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
