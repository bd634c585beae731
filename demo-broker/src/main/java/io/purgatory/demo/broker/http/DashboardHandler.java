package io.purgatory.demo.broker.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.stream.ChunkedStream;
import io.purgatory.demo.broker.metrics.OutOfMemoryExit;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the dashboard's HTTP requests:
 *
 * <ul>
 *   <li>{@code GET /} (also {@code /index.html}), {@code /dashboard.js}, {@code /dashboard.css}:
 *       the page;</li>
 *   <li>{@code GET /metrics}: Prometheus text;</li>
 *   <li>{@code GET /events}: the live feed, server-sent events;</li>
 *   <li>{@code GET /api/state}: the latest sample, JSON;</li>
 *   <li>{@code POST /api/replicas/ID/stall}, {@code .../resume}: what {@code --console}'s
 *       {@code stall ID} and {@code resume ID} do; {@code POST /api/replicas/ID/lag} with the
 *       form body {@code lagMs=MS} sets the follower's mean fetch lag. Each answers the replica's
 *       state as JSON.</li>
 * </ul>
 *
 * <p>Errors are short text: 404 for an unknown path or replica, 405 (with {@code Allow}) for a
 * method a path does not take, 400 for a request or body that does not parse, 403 for a
 * {@code POST} whose {@code Origin} is another site (a page elsewhere must not stall replicas).
 *
 * <p>Thread-safe as far as it matters: one instance serves every channel, all on the HTTP event
 * loop's single thread, which alone touches {@code scrapes}, the {@link RecentScrape} and
 * the {@link EventStream}.
 */
@Sharable
public final class DashboardHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardHandler.class);
    private static final Pattern REPLICA_ACTION = Pattern.compile("/api/replicas/([^/]+)/(stall|resume|lag)");
    private static final long MAX_LAG_MS = 60_000;
    /** {@code /metrics} requests answered at the same time at most: waiting for their rendering or being written. */
    static final int MAX_SCRAPES = 4;
    /** Bytes of a {@code /metrics} answer written at a time. */
    static final int SCRAPE_CHUNK_BYTES = 64 * 1024;

    private final ReplicaManager replicaManager;
    private final StaticAssets assets;
    private final RecentScrape metrics;
    private final EventStream events;
    private int scrapes; // /metrics requests being answered now: waiting for their rendering or being written

    DashboardHandler(ReplicaManager replicaManager, StaticAssets assets, RecentScrape metrics, EventStream events) {
        this.replicaManager = replicaManager;
        this.assets = assets;
        this.metrics = metrics;
        this.events = events;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            respond(ctx, request, text(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request"), false);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        StaticAssets.Asset asset = assets.get(path);
        if (asset != null) {
            if (requireMethod(ctx, request, HttpMethod.GET)) {
                respond(ctx, request, bytes(HttpResponseStatus.OK, asset.bytes(), asset.contentType()), true);
            }
            return;
        }
        switch (path) {
            case "/metrics" -> {
                if (requireMethod(ctx, request, HttpMethod.GET)) {
                    scrape(ctx, request);
                }
            }
            case "/api/state" -> {
                if (requireMethod(ctx, request, HttpMethod.GET)) {
                    respond(ctx, request, json(HttpResponseStatus.OK, events.latest()), true);
                }
            }
            case "/events" -> {
                if (requireMethod(ctx, request, HttpMethod.GET)) {
                    events.subscribe(ctx);
                }
            }
            default -> {
                Matcher replicaAction = REPLICA_ACTION.matcher(path);
                if (!replicaAction.matches()) {
                    respond(ctx, request, text(HttpResponseStatus.NOT_FOUND, "no such page: " + path), true);
                } else if (requireMethod(ctx, request, HttpMethod.POST)) {
                    replicaAction(ctx, request, replicaAction.group(1), replicaAction.group(2));
                }
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            OutOfMemoryExit.check(cause);
            LOG.warn("closing HTTP connection from {}", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    /**
     * Answers {@code /metrics}: a rendering made away from the event loop and shared while other
     * scrapes are answered ({@link RecentScrape}), streamed in chunks of {@value #SCRAPE_CHUNK_BYTES}
     * bytes as the client reads them, so a slow or gone client holds no more than the channel's high
     * water mark of it off the heap. At most {@value #MAX_SCRAPES} scrapes are answered at a time
     * (waiting for their rendering or being written; one more gets 503 with {@code Retry-After}), so
     * slow readers hold at most that many renderings. A client gone before its turn gets nothing
     * rendered, and one gone while its rendering ran gets nothing written.
     */
    private void scrape(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!ctx.channel().isActive()) {
            return;
        }
        if (scrapes >= MAX_SCRAPES) {
            FullHttpResponse busy = text(HttpResponseStatus.SERVICE_UNAVAILABLE,
                    MAX_SCRAPES + " /metrics requests are being answered; try again in a second");
            busy.headers().set(HttpHeaderNames.RETRY_AFTER, 1);
            respond(ctx, request, busy, true);
            return;
        }
        boolean keep = HttpUtil.isKeepAlive(request);
        scrapes++;
        metrics.get(scrapes > 1).whenComplete((body, failure) -> ctx.executor().execute(() -> {
            if (failure != null) {
                scrapes--;
                OutOfMemoryExit.check(failure);
                LOG.warn("cannot render /metrics", failure);
                FullHttpResponse error = text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "cannot render the metrics; the broker's log says why");
                HttpUtil.setKeepAlive(error, false);
                ctx.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
            } else if (!ctx.channel().isActive()) {
                scrapes--;
            } else {
                stream(ctx, body, keep);
            }
        }));
    }

    /** Writes a rendering of {@code /metrics}, chunk by chunk as the client reads; one scrape fewer once written (or failed). */
    private void stream(ChannelHandlerContext ctx, byte[] body, boolean keep) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        headers(head, body.length, MetricsExporter.CONTENT_TYPE);
        HttpUtil.setKeepAlive(head, keep);
        ctx.write(head);
        ChannelFuture written = ctx.writeAndFlush(new HttpChunkedInput(new ChunkedStream(new ByteArrayInputStream(body), SCRAPE_CHUNK_BYTES)));
        written.addListener(done -> scrapes--);
        if (!keep) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void replicaAction(ChannelHandlerContext ctx, FullHttpRequest request, String idText, String action) {
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        String host = request.headers().get(HttpHeaderNames.HOST);
        if (origin != null && !origin.equals("http://" + host)) {
            respond(ctx, request, text(HttpResponseStatus.FORBIDDEN, "cross-site request from " + origin + " refused"), true);
            return;
        }
        int followers = replicaManager.followers().count();
        final int id;
        try {
            id = Integer.parseInt(idText);
        } catch (NumberFormatException e) {
            respond(ctx, request, text(HttpResponseStatus.NOT_FOUND, "no follower replica '" + idText + "': followers are 1.." + followers), true);
            return;
        }
        if (id < 1 || id > followers) {
            respond(ctx, request, text(HttpResponseStatus.NOT_FOUND, "no follower replica " + id + ": followers are 1.." + followers), true);
            return;
        }
        switch (action) {
            case "stall" -> replicaManager.followers().stall(id);
            case "resume" -> replicaManager.followers().resume(id);
            default -> {
                Long lagMs = lagMs(request.content().toString(StandardCharsets.UTF_8));
                if (lagMs == null) {
                    respond(ctx, request, text(HttpResponseStatus.BAD_REQUEST,
                            "expected the form body lagMs=MS with MS a whole number in 0.." + MAX_LAG_MS), true);
                    return;
                }
                replicaManager.followers().setLag(id, lagMs);
            }
        }
        String state = Sampler.json(Sampler.Replica.of(replicaManager.followers(), id));
        respond(ctx, request, json(HttpResponseStatus.OK, state), true);
    }

    /** The {@code lagMs} of a form body holding that one field, or {@code null} when it is anything else. */
    private static Long lagMs(String body) {
        Map<String, List<String>> fields = new QueryStringDecoder(body.strip(), StandardCharsets.UTF_8, false).parameters();
        List<String> values = fields.get("lagMs");
        if (fields.size() != 1 || values == null || values.size() != 1) {
            return null;
        }
        try {
            long lagMs = Long.parseLong(values.get(0));
            return lagMs >= 0 && lagMs <= MAX_LAG_MS ? lagMs : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether the request has {@code allowed} as its method; if not, answers 405. */
    private static boolean requireMethod(ChannelHandlerContext ctx, FullHttpRequest request, HttpMethod allowed) {
        if (request.method().equals(allowed)) {
            return true;
        }
        FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED,
                request.method() + " is not allowed here; use " + allowed);
        response.headers().set(HttpHeaderNames.ALLOW, allowed.name());
        respond(ctx, request, response, true);
        return false;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String message) {
        return bytes(status, (message + "\n").getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
    }

    private static FullHttpResponse json(HttpResponseStatus status, String json) {
        return bytes(status, json.getBytes(StandardCharsets.UTF_8), "application/json");
    }

    private static FullHttpResponse bytes(HttpResponseStatus status, byte[] body, String contentType) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        headers(response, body.length, contentType);
        return response;
    }

    private static void headers(HttpResponse response, int length, String contentType) {
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CONTENT_LENGTH, length)
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set("X-Content-Type-Options", "nosniff")
                // the page loads nothing from elsewhere; the browser test would see a violation as a console error
                .set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:");
    }

    /** Sends the response; the connection stays open when the client asked for that and {@code keepAlive} allows it. */
    private static void respond(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response, boolean keepAlive) {
        boolean keep = keepAlive && HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keep);
        if (keep) {
            ctx.writeAndFlush(response);
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
