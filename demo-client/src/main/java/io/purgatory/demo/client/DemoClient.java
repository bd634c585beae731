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
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("demo-client-io", true),
                NioIoHandler.newFactory());
        try (KafkaConnection connection = KafkaConnection.open(group, options.bootstrap(), options.connectTimeoutMs(), CLIENT_ID)) {
            Handshake.Result setup = Handshake.perform(connection, options.topic(), options.graceMs());
            out.println(ReportRenderer.startLine(options, setup));
            out.flush();
            LoadGenerator load = new LoadGenerator(connection, setup, options);
            CompletableFuture<RunReport> done = load.start();
            stop.thenRun(load::interrupt);
            return awaitPrintingLiveLines(load, done, out);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /** What a run with a consumer saw: the producer's report (null in consume mode alone) and the consumer's. */
    record WithConsumer(RunReport produced, ConsumeReport consumed) {
    }

    /**
     * Consumes, alone for {@link ConsumeOptions#durationMs()} or, with {@code produce}, while the
     * producer load runs on a second connection and then until the consumer has read up to the
     * high watermarks (or {@link ConsumeOptions#drainMs()} passes). Prints the start lines and a
     * live line (two with the producer) every second to {@code out}, not the summaries.
     *
     * @throws ClientException when the run cannot start
     */
    static WithConsumer consume(ClientOptions options, ConsumeOptions consume, boolean produce, PrintWriter out)
            throws ClientException, InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("demo-client-io", true),
                NioIoHandler.newFactory());
        try (KafkaConnection consumer = KafkaConnection.open(group, options.bootstrap(), options.connectTimeoutMs(), CLIENT_ID + "-consumer")) {
            Handshake.ConsumerSetup consumerSetup = Handshake.performForConsumer(consumer, options.topic(), consume.fromEarliest(),
                    options.graceMs());
            out.println(ConsumeRenderer.startLine(options, consume, consumerSetup));
            out.flush();
            FetchLoop fetchLoop = new FetchLoop(consumer, consumerSetup, consume);
            if (!produce) {
                CompletableFuture<ConsumeReport> consumed = fetchLoop.start();
                fetchLoop.stopAfter(consume.durationMs());
                return new WithConsumer(null, awaitPrinting(consumed, new LiveLines(null, fetchLoop, out)));
            }
            try (KafkaConnection producer = KafkaConnection.open(group, options.bootstrap(), options.connectTimeoutMs(), CLIENT_ID)) {
                Handshake.Result setup = Handshake.perform(producer, options.topic(), options.graceMs());
                out.println(ReportRenderer.startLine(options, setup));
                out.flush();
                CompletableFuture<ConsumeReport> consumed = fetchLoop.start();
                LoadGenerator load = new LoadGenerator(producer, setup, options);
                LiveLines lines = new LiveLines(load, fetchLoop, out);
                RunReport produced = awaitPrinting(load.start(), lines);
                fetchLoop.drainThenStop();
                return new WithConsumer(produced, awaitPrinting(consumed, lines.consumerOnly()));
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /** Waits for {@code done}, printing {@code lines} every second. */
    private static <T> T awaitPrinting(CompletableFuture<T> done, LiveLines lines) throws InterruptedException {
        long nextLine = System.nanoTime() + LIVE_LINE_INTERVAL_NANOS;
        while (true) {
            try {
                return done.get(Math.max(0, nextLine - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException timeForALine) {
                lines.print();
                nextLine += LIVE_LINE_INTERVAL_NANOS;
            } catch (ExecutionException e) {
                throw new IllegalStateException("the run failed", e.getCause());
            }
        }
    }

    /**
     * The live lines of a run with a consumer: the producer's (while it runs) and the consumer's,
     * each with its rate since the previous line. Confined to the printing thread.
     */
    private static final class LiveLines {
        private final LoadGenerator load;
        private final FetchLoop fetchLoop;
        private final PrintWriter out;
        private Progress previousProduce = Progress.START;
        private ConsumeProgress previousConsume = ConsumeProgress.START;

        LiveLines(LoadGenerator load, FetchLoop fetchLoop, PrintWriter out) {
            this.load = load;
            this.fetchLoop = fetchLoop;
            this.out = out;
        }

        /** The same consumer line, continuing its rate, without the producer's. */
        LiveLines consumerOnly() {
            LiveLines lines = new LiveLines(null, fetchLoop, out);
            lines.previousConsume = previousConsume;
            return lines;
        }

        void print() throws InterruptedException {
            if (load != null) {
                Progress now = get(load.progress());
                out.println(ReportRenderer.liveLine(now, previousProduce));
                previousProduce = now;
            }
            ConsumeProgress now = get(fetchLoop.progress());
            out.println(ConsumeRenderer.liveLine(now, previousConsume));
            previousConsume = now;
            out.flush();
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
                Progress now = get(load.progress());
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
