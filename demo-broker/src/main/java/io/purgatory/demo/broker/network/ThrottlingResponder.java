package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.server.Responder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A {@link Responder} that charges one request's handler time to its client's
 * {@link RequestTimeQuota} and puts the resulting throttle in the response's
 * {@code throttle_time_ms}, as a Kafka broker does. The handler time is the CPU time the handler
 * thread spent on the request (Kafka counts the wall time; on a loaded machine that charges a light
 * client for the waits other clients cause), from its turn on the handler until its response is sent
 * on that thread or, for a request that parks or is refused, until the handler is done with it
 * ({@link #handled()}). A response sent on another thread (a parked produce or fetch answered later)
 * carries what is left of the client's throttle.
 *
 * <p>Thread-safe: the record is made once, on the handler thread, by whichever call sets
 * {@code recorded}; the responder it wraps and the quota are thread-safe.
 */
final class ThrottlingResponder implements Responder {
    private final Responder responder;
    private final RequestTimeQuota.Client client;
    private final LongSupplier cpuClock;
    private final Thread handler;
    private final long startNanos;
    private final AtomicBoolean recorded = new AtomicBoolean();
    private volatile long throttleMs; // written once, by the thread that set recorded

    /**
     * Starts the clock of one request's handler time, now, on the handler thread.
     *
     * @param cpuClock the CPU time of the current thread, in nanoseconds ({@link #HANDLER_CPU})
     */
    ThrottlingResponder(Responder responder, RequestTimeQuota.Client client, LongSupplier cpuClock) {
        this.responder = responder;
        this.client = client;
        this.cpuClock = cpuClock;
        this.handler = Thread.currentThread();
        this.startNanos = cpuClock.getAsLong();
    }

    /** The CPU time of the current thread, in nanoseconds (its wall clock where the JVM cannot tell). */
    static final LongSupplier HANDLER_CPU = threadCpuClock();

    private static LongSupplier threadCpuClock() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads::getCurrentThreadCpuTime : System::nanoTime;
    }

    /**
     * The handler is done with the request: records its handler time unless its response did.
     *
     * @return how long the client is throttled from now, in milliseconds (0: not)
     */
    long handled() {
        return recordOnce() ? throttleMs : client.throttleMs();
    }

    /** Records the handler time since the start, when on the handler thread and not recorded before; whether this call did. */
    private boolean recordOnce() {
        if (Thread.currentThread() != handler || !recorded.compareAndSet(false, true)) {
            return false;
        }
        throttleMs = client.record(cpuClock.getAsLong() - startNanos);
        return true;
    }

    @Override
    public void send(AbstractResponse response) {
        long throttle = recordOnce() ? throttleMs : client.throttleMs();
        response.maybeSetThrottleTimeMs((int) Math.min(Integer.MAX_VALUE, throttle));
        responder.send(response);
    }

    @Override
    public void noResponse() {
        recordOnce();
        responder.noResponse();
    }

    @Override
    public void fail(RuntimeException cause) {
        recordOnce();
        responder.fail(cause);
    }

    @Override
    public void awaits(Runnable completeNow) {
        responder.awaits(completeNow);
    }
}
