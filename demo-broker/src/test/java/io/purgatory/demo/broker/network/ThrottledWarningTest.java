package io.purgatory.demo.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.channel.embedded.EmbeddedChannel;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Resource problems are logged once a period with a count, and a failing accept pauses accepting without a stack trace. */
class ThrottledWarningTest {
    private final List<String> lines = new ArrayList<>();
    private long nowNanos = 123;
    private final ThrottledWarning warning = new ThrottledWarning(lines::add, 10_000, () -> nowNanos);

    @Test
    void oneLinePerPeriodCountingTheOthers() {
        for (int i = 0; i < 1_000; i++) {
            warning.warn("refused");
        }
        assertEquals(List.of("refused"), lines);
        nowNanos += TimeUnit.MILLISECONDS.toNanos(9_999);
        warning.warn("refused");
        assertEquals(1, lines.size());
        nowNanos += TimeUnit.MILLISECONDS.toNanos(1);
        warning.warn("refused");
        assertEquals(List.of("refused", "refused (1000 more like it since the last warning, not logged)"), lines);
        nowNanos += TimeUnit.MILLISECONDS.toNanos(60_000);
        warning.warn("refused");
        assertEquals("refused", lines.get(2));
    }

    @Test
    void failingAcceptsPauseAcceptingAndLogOneLineWithoutPassingTheFailureOn() {
        EmbeddedChannel server = new EmbeddedChannel(new AcceptErrorHandler(warning));
        for (int i = 0; i < 100; i++) {
            server.pipeline().fireExceptionCaught(new IOException("Too many open files"));
        }
        server.checkException(); // nothing reached the end of the pipeline, where Netty logs a stack trace
        assertEquals(List.of("cannot accept connections (java.io.IOException: Too many open files); pausing accepts for 1000 ms"
                + " at a time until it can"), lines);
        assertFalse(server.config().isAutoRead());
        server.advanceTimeBy(AcceptErrorHandler.PAUSE_MS, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        assertEquals(true, server.config().isAutoRead());
        server.finishAndReleaseAll();
    }
}
