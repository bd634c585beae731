package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.server.Responder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A {@link Responder} that charges one request's handler time to its connection's
 * {@link ConnectionQuota} and puts the resulting throttle in the response's
 * {@code throttle_time_ms}, as a Kafka broker does. The handler time is the CPU time the handler
 * thread spent on the request (Kafka counts the wall time; on a loaded machine that charges a light
 * client for the waits other clients cause), from its turn on the handler until the handler is done
 * with it ({@link #handled()}), serializing its response included: a response sent on the handler
 * thread carries the throttle of the time until then, and the rest is charged when the handler is
 * done. A response sent on another thread (a parked produce or fetch answered later) carries what is
 * left of the client's throttle.
 *
 * <p>Not thread-safe but as stated: {@code charged} and {@code done} are read and written on the
 * handler thread only (the thread that created the responder; should that thread answer the parked
 * request later, for another request, it finds {@code done}); a response sent on another thread only
 * reads the thread-safe quota; the responder it wraps is thread-safe.
 */
final class ThrottlingResponder implements Responder {
    private final Responder responder;
    private final ConnectionQuota client;
    private final LongSupplier cpuClock;
    private final Thread handler;
    private long charged; // handler thread only: the CPU clock's reading up to which the handler time is charged
    private boolean done; // handler thread only: handled() was called; nothing more is charged

    /**
     * Starts the clock of one request's handler time, now, on the handler thread.
     *
     * @param cpuClock the CPU time of the current thread, in nanoseconds ({@link #THREAD_CPU})
     */
    ThrottlingResponder(Responder responder, ConnectionQuota client, LongSupplier cpuClock) {
        this.responder = responder;
        this.client = client;
        this.cpuClock = cpuClock;
        this.handler = Thread.currentThread();
        this.charged = cpuClock.getAsLong();
    }

    /** The CPU time of the current thread, in nanoseconds (its wall clock where the JVM cannot tell). */
    static final LongSupplier THREAD_CPU = threadCpuClock();

    private static LongSupplier threadCpuClock() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads::getCurrentThreadCpuTime : System::nanoTime;
    }

    /**
     * The handler is done with the request: charges its handler time not charged yet.
     *
     * @return how long the client is throttled from now, in milliseconds (0: not)
     */
    long handled() {
        long throttleMs = charge();
        done = true;
        return throttleMs;
    }

    /**
     * On the handler thread until it is done with the request, charges the handler time since the
     * last charge and returns the throttle that gives; otherwise (a parked request answered later, on
     * any thread) what is left of the client's throttle.
     */
    private long charge() {
        if (Thread.currentThread() != handler || done) {
            return client.throttleMs();
        }
        long now = cpuClock.getAsLong();
        long nanos = now - charged;
        charged = now;
        return client.recordHandlerTime(nanos);
    }

    @Override
    public void send(AbstractResponse response) {
        response.maybeSetThrottleTimeMs((int) Math.min(Integer.MAX_VALUE, charge()));
        responder.send(response);
    }

    @Override
    public void noResponse() {
        responder.noResponse();
    }

    @Override
    public void fail(RuntimeException cause) {
        responder.fail(cause);
    }

    @Override
    public void awaits(Runnable completeNow) {
        responder.awaits(completeNow);
    }
}
