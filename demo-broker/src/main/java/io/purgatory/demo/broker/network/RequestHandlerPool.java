package io.purgatory.demo.broker.network;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request handler threads, as Kafka's {@code KafkaRequestHandlerPool} ({@code num.io.threads}):
 * the network threads (Netty's event loops) only frame requests and write responses; parsing and
 * handling run here, so a slow request holds one handler thread, never the connections that share
 * its event loop.
 *
 * <p>The queue is unbounded by type but bounded by use: {@link KafkaRequestHandler} gives it at most
 * one request per connection at a time (a connection's next request waits in its channel until the
 * previous one is handled, as Kafka mutes a channel), so it never holds more than
 * {@code --max-connections} requests.
 *
 * <p>{@link #close} does not wait on a handler that never yields: it interrupts them, waits at most
 * {@value #CLOSE_WAIT_MS} ms, and leaves the rest to die with the process (the threads are daemons).
 *
 * <p>Thread-safe: a {@link ThreadPoolExecutor}.
 */
public final class RequestHandlerPool implements Executor, AutoCloseable {
    /** How long {@link #close} waits for the handlers to finish the requests they hold. */
    static final long CLOSE_WAIT_MS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandlerPool.class);

    private final ThreadPoolExecutor threads;

    /** Starts {@code size} handler threads, named {@code broker-request-handler-N}. */
    public RequestHandlerPool(int size) {
        AtomicInteger ids = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "broker-request-handler-" + ids.getAndIncrement());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> LOG.error("request handler {} died; a new one replaces it", t.getName(), e));
            return thread;
        });
        threads.prestartAllCoreThreads();
    }

    /**
     * Runs {@code request} on a handler thread.
     *
     * @throws java.util.concurrent.RejectedExecutionException once closed
     */
    @Override
    public void execute(Runnable request) {
        threads.execute(request);
    }

    /** Requests given and not yet taken by a handler thread. */
    public int queued() {
        return threads.getQueue().size();
    }

    /** Stops the handlers: interrupts those still busy and waits for them at most {@value #CLOSE_WAIT_MS} ms. */
    @Override
    public void close() {
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                LOG.warn("{} request handler(s) still busy after {} ms; the process exits without them", threads.getActiveCount(), CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
