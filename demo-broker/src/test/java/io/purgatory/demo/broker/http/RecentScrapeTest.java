package io.purgatory.demo.broker.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A scrape alone is rendered anew; scrapes while others are answered share a rendering younger than its maximum age. */
class RecentScrapeTest {
    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger renderings = new AtomicInteger();
    private final RecentScrape scrapes = new RecentScrape(() -> new byte[] {(byte) renderings.incrementAndGet()}, 1_000, now::get);

    @Test
    void aScrapeAloneIsAlwaysRenderedAnew() {
        assertEquals(1, scrapes.get(false)[0]);
        assertEquals(2, scrapes.get(false)[0]);
    }

    @Test
    void busyScrapesShareTheLastRenderingForAtMostItsAge() {
        scrapes.get(false);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        assertEquals(1, scrapes.get(true)[0]);
        assertEquals(1, renderings.get());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertEquals(2, scrapes.get(true)[0], "a second old: rendered anew");
    }
}
