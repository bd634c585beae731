package io.purgatory.demo.broker.network;

import java.util.concurrent.Executor;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Unlike Kafka's FIFO request queue, smaller requests go first: a request's cost is linear in its
 * size ({@link RequestEntryLimit}), so a {@link Sized} request waits only behind those of its size
 * class (sizes within a factor of two, from 1 KiB up) or smaller, then in arrival order. A client
 * sending large requests in a loop on many connections delays a small produce by at most one request
 * per handler thread, not by a queue of them. Other tasks count as the smallest.
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
    private final AtomicLong arrivals = new AtomicLong();

    /** Starts {@code size} handler threads, named {@code broker-request-handler-N}. */
    public RequestHandlerPool(int size) {
        AtomicInteger ids = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(size, size, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(), task -> {
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
        threads.execute(request instanceof Sized sized ? new Queued(sized, sized.bytes(), arrivals.getAndIncrement())
                : new Queued(request, 0, arrivals.getAndIncrement()));
    }

    /** A request that says its size in bytes, by which the pool orders it. */
    public interface Sized extends Runnable {
        int bytes();
    }

    /** A task in the queue: smaller size class first, then arrival order. */
    private record Queued(Runnable task, int bytes, long arrival) implements Runnable, Comparable<Queued> {
        @Override
        public void run() {
            task.run();
        }

        @Override
        public int compareTo(Queued other) {
            int bySize = Integer.compare(sizeClass(bytes), sizeClass(other.bytes));
            return bySize != 0 ? bySize : Long.compare(arrival, other.arrival);
        }

        /** 0 up to 1 KiB, then one class per doubling. */
        private static int sizeClass(int bytes) {
            return 32 - Integer.numberOfLeadingZeros(bytes >>> 10);
        }
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
