package io.purgatory.demo.client;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run: connect, handshake, drive the load while printing a live line every second, then close.
 *
 * <p>Threads: the calling thread blocks in {@link #run} and does all the printing; one Netty event
 * loop thread ({@code demo-client-io}, a daemon) owns the connection and the load. The event loop
 * group lives for one run. Not thread-safe: one run per instance, from one thread.
 */
final class DemoClient {
    static final String CLIENT_ID = "purgatory-demo-client";
    static final long LIVE_LINE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private DemoClient() {
    }

    /**
     * Runs the load described by {@code options}, printing the start line and the live lines to
     * {@code out} (not the summary: see {@link ReportRenderer#summary}).
     *
     * @param stop completed (from any thread) to end the load at once with what happened so far
     * @return the report, also when the connection was lost mid-run or the load was stopped
     * @throws ClientException when the run cannot start: no connection, no common version, no topic
     */
    static RunReport run(ClientOptions options, PrintWriter out, CompletableFuture<Void> stop) throws ClientException, InterruptedException {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("demo-client-io", true),
                NioIoHandler.newFactory());
        try (KafkaConnection connection = KafkaConnection.open(group, options.bootstrap(), options.connectTimeoutMs(), CLIENT_ID)) {
            final Handshake.Result setup = Handshake.perform(connection, options.topic(), options.graceMs());
            out.println(ReportRenderer.startLine(options, setup));
            out.flush();
            final LoadGenerator load = new LoadGenerator(connection, setup, options);
            final CompletableFuture<RunReport> done = load.start();
            stop.thenRun(load::interrupt);
            return awaitPrintingLiveLines(load, done, out);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    private static RunReport awaitPrintingLiveLines(LoadGenerator load, CompletableFuture<RunReport> done, PrintWriter out)
            throws InterruptedException {
        long nextLine = System.nanoTime() + LIVE_LINE_INTERVAL_NANOS;
        Progress previous = Progress.START;
        while (true) {
            try {
                return done.get(Math.max(0, nextLine - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException timeForALine) {
                final Progress now = get(load.progress());
                out.println(ReportRenderer.liveLine(now, previous));
                out.flush();
                previous = now;
                nextLine += LIVE_LINE_INTERVAL_NANOS;
            } catch (ExecutionException e) {
                throw new IllegalStateException("the load generator failed", e.getCause());
            }
        }
    }

    private static <T> T get(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }
}
