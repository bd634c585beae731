package io.purgatory.demo.broker.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@code /metrics} text, rendered away from the HTTP event loop and shared under load. A broker
 * with 225,000 committed offsets renders 41 MB, which takes seconds of one core: on the event loop,
 * every other dashboard client would wait for it.
 *
 * <ul>
 *   <li>Renderings run on {@code renderer} (one thread), so the event loop goes on serving the page,
 *       the event stream and the replica controls meanwhile.</li>
 *   <li>A scrape that comes while a rendering is under way gets that rendering: however many
 *       clients scrape at once, one rendering runs at a time.</li>
 *   <li>A scrape that comes while others are being answered ({@code busy}), within
 *       {@code maxAgeMs} of the start of the last rendering, gets that rendering's bytes, so many
 *       clients scraping in turn cost one rendering per period.</li>
 *   <li>A scrape alone, with no rendering under way, is rendered anew; so is any scrape after a
 *       rendering that failed.</li>
 * </ul>
 *
 * <p>Not thread-safe: {@link #get} is confined to the HTTP event loop; the futures it returns
 * complete on the renderer's thread.
 */
final class RecentScrape {
    private final Supplier<byte[]> render;
    private final Executor renderer;
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private CompletableFuture<byte[]> latest; // the last rendering started, done or not
    private long startedAt;

    /**
     * @param render a rendering of now ({@link MetricsExporter#scrape()}), run on {@code renderer}
     * @param renderer where renderings run: one thread of their own
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    RecentScrape(Supplier<byte[]> render, Executor renderer, long maxAgeMs, LongSupplier nanoClock) {
        this.render = render;
        this.renderer = renderer;
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMs);
        this.nanoClock = nanoClock;
    }

    /**
     * The metrics, as the class comment says which rendering: completes on the renderer's thread
     * (exceptionally when the rendering failed); its bytes are not to be changed (they may be shared).
     */
    CompletableFuture<byte[]> get(boolean busy) {
        long now = nanoClock.getAsLong();
        boolean shared = latest != null && !latest.isCompletedExceptionally() && (!latest.isDone() || busy && now - startedAt < maxAgeNanos);
        if (!shared) {
            latest = CompletableFuture.supplyAsync(render, renderer);
            startedAt = now;
        }
        return latest;
    }
}
