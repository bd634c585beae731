package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.metrics.OutOfMemoryExit;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
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
 * <p>Unlike Kafka's FIFO request queue, cheaper clients go first, then smaller requests: a
 * {@link Prioritized} request waits only behind those whose clients used as little handler time
 * lately or less (its cost class, from {@link RequestTimeQuota}: a 22-byte request for all topics'
 * metadata may keep a handler busy for milliseconds, so size alone does not say what a client costs),
 * then behind those of its size class (sizes within a factor of two, from 1 KiB up) or smaller
 * (a request's cost is linear in its size, {@link RequestEntryLimit}), then in arrival order. A
 * client sending expensive requests in a loop on many connections delays a good client's produce by
 * at most one request per handler thread, not by a queue of them. Other tasks count as the cheapest
 * and smallest.
 *
 * <p>With two threads or more, one is kept for small requests of light clients (at most
 * {@value #SMALL_REQUEST_BYTES} bytes: a heartbeat, a fetch, a produce of a default-sized batch; from
 * a client of cost class {@value #LIGHT_COST_CLASS} or less, which used less than 1/16 of a handler's
 * time lately): such a request goes to it unless it is busy with one and another waits for it, so it
 * does not wait for a large or expensive one to finish even when every other handler is busy with
 * one; otherwise it joins the queue.
 *
 * <p>A handler thread that dies of an {@link OutOfMemoryError} ends the process ({@link OutOfMemoryExit});
 * one that dies of anything else is logged and replaced.
 *
 * <p>{@link #close} does not wait on a handler that never yields: it interrupts them, waits at most
 * {@value #CLOSE_WAIT_MS} ms, and leaves the rest to die with the process (the threads are daemons).
 *
 * <p>Thread-safe: two {@link ThreadPoolExecutor}s and an atomic arrival counter.
 */
public final class RequestHandlerPool implements Executor, AutoCloseable {
    /** How long {@link #close} waits for the handlers to finish the requests they hold. */
    static final long CLOSE_WAIT_MS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandlerPool.class);

    /** Largest request the handler kept for small requests takes. */
    static final int SMALL_REQUEST_BYTES = 16 * 1024;
    /** Highest cost class ({@link RequestTimeQuota.Client#costClass()}) whose requests the handler kept for small requests takes. */
    static final int LIGHT_COST_CLASS = 6;

    private final ThreadPoolExecutor threads;
    private final ThreadPoolExecutor smallRequests; // null with one thread; holds at most one small request waiting
    private final AtomicLong arrivals = new AtomicLong();

    /** Starts {@code size} handler threads, named {@code broker-request-handler-N}, one of them kept for small requests when {@code size > 1}. */
    public RequestHandlerPool(int size) {
        AtomicInteger ids = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, "broker-request-handler-" + ids.getAndIncrement());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> {
                OutOfMemoryExit.check(e);
                LOG.error("request handler {} died; a new one replaces it", t.getName(), e);
            });
            return thread;
        };
        int shared = size > 1 ? size - 1 : size;
        this.threads = new ThreadPoolExecutor(shared, shared, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(), factory);
        threads.prestartAllCoreThreads();
        this.smallRequests = size > 1 ? new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1), factory) : null;
        if (smallRequests != null) {
            smallRequests.prestartAllCoreThreads();
        }
    }

    /**
     * Runs {@code request} on a handler thread.
     *
     * @throws java.util.concurrent.RejectedExecutionException once closed
     */
    @Override
    public void execute(Runnable request) {
        int bytes = request instanceof Prioritized prioritized ? prioritized.bytes() : 0;
        int costClass = request instanceof Prioritized prioritized ? prioritized.costClass() : 0;
        if (smallRequests != null && bytes <= SMALL_REQUEST_BYTES && costClass <= LIGHT_COST_CLASS) {
            try {
                smallRequests.execute(request);
                return;
            } catch (RejectedExecutionException busy) {
                // the handler kept for small requests has one waiting already (or the pool is closed, which the queue says next)
            }
        }
        threads.execute(new Queued(request, costClass, bytes, arrivals.getAndIncrement()));
    }

    /** A request that says what its client costs and its own size in bytes, by which the pool orders it. */
    public interface Prioritized extends Runnable {
        /** The request's size in bytes. */
        int bytes();

        /** Its client's recent handler time, as a {@link RequestTimeQuota.Client#costClass() cost class}. */
        int costClass();
    }

    /** A task in the queue: lower cost class first, then smaller size class, then arrival order. */
    private record Queued(Runnable task, int costClass, int bytes, long arrival) implements Runnable, Comparable<Queued> {
        @Override
        public void run() {
            task.run();
        }

        @Override
        public int compareTo(Queued other) {
            int byCost = Integer.compare(costClass, other.costClass);
            if (byCost != 0) {
                return byCost;
            }
            int bySize = Integer.compare(sizeClass(bytes), sizeClass(other.bytes));
            return bySize != 0 ? bySize : Long.compare(arrival, other.arrival);
        }

        /** 0 up to 1 KiB, then one class per doubling. */
        private static int sizeClass(int bytes) {
            return 32 - Integer.numberOfLeadingZeros(bytes >>> 10);
        }
    }

    /** Stops the handlers: interrupts those still busy and waits for them at most {@value #CLOSE_WAIT_MS} ms. */
    @Override
    public void close() {
        threads.shutdownNow();
        if (smallRequests != null) {
            smallRequests.shutdownNow();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        try {
            boolean stopped = threads.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)
                    && (smallRequests == null || smallRequests.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            if (!stopped) {
                LOG.warn("request handler(s) still busy after {} ms; the process exits without them", CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
