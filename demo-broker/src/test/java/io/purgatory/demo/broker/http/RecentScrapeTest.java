package io.purgatory.demo.broker.http;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Renderings run on the renderer, never on the caller; a scrape during a rendering shares it; a scrape
 * alone is rendered anew; scrapes while others are answered share a rendering younger than its
 * maximum age; a failed rendering is not shared. The renderer here is a queue the test runs by hand.
 */
class RecentScrapeTest {
    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger renderings = new AtomicInteger();
    private final Queue<Runnable> renderer = new ArrayDeque<>();
    private boolean failNext;
    private final RecentScrape scrapes = new RecentScrape(() -> {
        if (failNext) {
            failNext = false;
            throw new IllegalStateException("a callback failed");
        }
        return new byte[] {(byte) renderings.incrementAndGet()};
    }, renderer::add, 1_000, now::get);

    /** Runs the renderings queued, as the renderer's thread would. */
    private void render() {
        for (Runnable task; (task = renderer.poll()) != null; ) {
            task.run();
        }
    }

    private byte rendered(CompletableFuture<byte[]> scrape) {
        render();
        return scrape.join()[0];
    }

    @Test
    void aRenderingRunsOnTheRendererNotOnTheCaller() {
        CompletableFuture<byte[]> scrape = scrapes.get(false);
        assertFalse(scrape.isDone());
        assertEquals(0, renderings.get());
        assertEquals(1, rendered(scrape));
    }

    @Test
    void aScrapeAloneIsAlwaysRenderedAnew() {
        assertEquals(1, rendered(scrapes.get(false)));
        assertEquals(2, rendered(scrapes.get(false)));
    }

    @Test
    void scrapesDuringARenderingShareIt() {
        CompletableFuture<byte[]> first = scrapes.get(false);
        CompletableFuture<byte[]> second = scrapes.get(true);
        CompletableFuture<byte[]> third = scrapes.get(false);
        render();
        assertEquals(1, renderings.get());
        assertEquals(1, first.join()[0]);
        assertEquals(1, second.join()[0]);
        assertEquals(1, third.join()[0]);
    }

    @Test
    void busyScrapesShareTheLastRenderingForAtMostItsAge() {
        rendered(scrapes.get(false));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        assertEquals(1, rendered(scrapes.get(true)));
        assertEquals(1, renderings.get());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertEquals(2, rendered(scrapes.get(true)), "a second old: rendered anew");
    }

    @Test
    void aFailedRenderingFailsItsScrapesAndIsNotShared() {
        failNext = true;
        CompletableFuture<byte[]> failed = scrapes.get(false);
        CompletableFuture<byte[]> sharing = scrapes.get(true);
        render();
        assertTrue(failed.isCompletedExceptionally());
        assertTrue(sharing.isCompletedExceptionally());
        assertEquals(1, rendered(scrapes.get(true)), "rendered anew, though busy and within the age");
    }
}
