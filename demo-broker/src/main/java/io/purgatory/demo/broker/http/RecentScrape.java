package io.purgatory.demo.broker.http;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@code /metrics} text, shared under load: a scrape that comes while others are being answered,
 * within {@code maxAgeMs} of the last rendering, gets that rendering's bytes, so many clients
 * scraping at once cost one rendering per period however many they are (a broker with 225,000
 * committed offsets renders 41 MB on the HTTP event loop). A scrape alone is always rendered anew.
 *
 * <p>Not thread-safe: confined to the HTTP event loop.
 */
final class RecentScrape {
    private final Supplier<byte[]> render;
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private byte[] latest;
    private long renderedAt;

    /**
     * @param render a rendering of now ({@link MetricsExporter#scrape()})
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    RecentScrape(Supplier<byte[]> render, long maxAgeMs, LongSupplier nanoClock) {
        this.render = render;
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMs);
        this.nanoClock = nanoClock;
    }

    /**
     * The metrics now or, when {@code busy} (other scrapes are being answered), as of at most
     * {@code maxAgeMs} ago; not to be changed (they may be shared).
     */
    byte[] get(boolean busy) {
        long now = nanoClock.getAsLong();
        if (!busy || latest == null || now - renderedAt >= maxAgeNanos) {
            latest = render.get();
            renderedAt = now;
        }
        return latest;
    }
}
