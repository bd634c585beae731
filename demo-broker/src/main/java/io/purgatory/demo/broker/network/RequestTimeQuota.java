package io.purgatory.demo.broker.network;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Each client's fair share of the request handlers' time, as Kafka's request quotas
 * ({@code ClientRequestQuotaManager}) bound a client's share of {@code num.io.threads}: the time each
 * request took on a handler thread ({@link ThrottlingResponder}) is recorded against its client, and so
 * is the time a network thread spent writing its responses ({@link #recordNetwork}, as Kafka counts
 * its network threads' time too: an answer of a few hundred kilobytes costs more to write than to
 * build); a client whose rate is past its share is throttled for as long as brings it back to the
 * share (Kafka's formula: the excess over the share, relative to the share, times the window), at
 * most one window.
 *
 * <p>A client is a connection: a client id is a name anyone can claim, so a share by client id would
 * let one client throttle another (Kafka keys its quotas by authenticated user too; the demo has none).
 *
 * <p>The window: a client's rate is the handler and network time it used in the current window plus the previous
 * window's, weighted by how much of the previous window still lies within one window of now (a
 * sliding window over two buckets). Windows are aligned to the quota's start, so every client rolls
 * at the same instants.
 *
 * <p>The share: {@code handlers × window / active}, where {@code active} counts the clients that
 * used handler time in the current or the previous window. So the handlers' time is split evenly
 * among those that want it. As a connection has one request at the handlers at a time, its handler
 * time is at most one handler's, so while at most {@code handlers} clients are active (a client
 * alone, say) only the network time of their responses can throttle one. A closed
 * connection leaves the count within two windows.
 *
 * <p>The cost class ({@link Client#costClass()}): the client's rate as a fraction of one handler, in
 * classes that double: 0 for less than 1/1024 of a handler's time, one more per doubling, 11 for all
 * of it. The {@link RequestHandlerPool} runs the requests of cheaper clients first.
 *
 * <p>Thread-safe: every field of the quota and of its clients is guarded by the quota's monitor; a
 * record takes it once, for a few arithmetic steps.
 */
public final class RequestTimeQuota {
    /** Cost classes: {@code 0..MAX_COST_CLASS}. */
    static final int MAX_COST_CLASS = 11;

    private final int handlers;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private final long origin;
    @GuardedBy("this")
    private long window; // the index of the current window
    @GuardedBy("this")
    private int activeNow; // clients that used handler time in the current window
    @GuardedBy("this")
    private int activeBefore; // clients that used handler time in the previous window
    @GuardedBy("this")
    private int activeInBoth; // clients counted in both

    /**
     * @param handlers the request handler threads whose time is shared (no more than the cores that run them)
     * @param windowMs the quota window (Kafka's {@code quota.window.size.seconds}, in milliseconds)
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    public RequestTimeQuota(int handlers, long windowMs, LongSupplier nanoClock) {
        if (handlers < 1 || windowMs < 1) {
            throw new IllegalArgumentException("handlers and window must be positive: " + handlers + ", " + windowMs + " ms");
        }
        this.handlers = handlers;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMs);
        this.nanoClock = nanoClock;
        this.origin = nanoClock.getAsLong();
    }

    /** A new client (a connection) that has used no handler time yet. */
    public Client newClient() {
        return new Client();
    }

    /** Clients that used handler time in the current or the previous window. */
    public synchronized int activeClients() {
        roll(nanoClock.getAsLong());
        return activeNow + activeBefore - activeInBoth;
    }

    /** Each active client's share of the handlers' time per window, in nanoseconds (all of it while none is active). */
    public synchronized long shareNanos() {
        return (long) handlers * windowNanos / Math.max(1, activeClients());
    }

    /** Moves to the window of {@code now}: the current window's counts become the previous one's, or nothing is left of them. */
    @GuardedBy("this")
    private long roll(long now) {
        long index = Math.floorDiv(now - origin, windowNanos);
        if (index != window) {
            activeBefore = index == window + 1 ? activeNow : 0;
            activeNow = 0;
            activeInBoth = 0;
            window = index;
        }
        return index;
    }

    /**
     * One client's use of the handlers. Thread-safe: its fields are guarded by the quota's monitor
     * ({@code RequestTimeQuota.this}).
     */
    public final class Client {
        @GuardedBy("RequestTimeQuota.this")
        private long lastWindow = Long.MIN_VALUE; // the window of usedNow
        @GuardedBy("RequestTimeQuota.this")
        private long usedNow;
        @GuardedBy("RequestTimeQuota.this")
        private long usedBefore; // in window lastWindow - 1
        @GuardedBy("RequestTimeQuota.this")
        private long throttledUntil;
        @GuardedBy("RequestTimeQuota.this")
        private boolean throttled;

        private Client() {
        }

        /**
         * Records that a request of this client held a handler thread for {@code nanos}.
         *
         * @return how long the client is throttled from now, in milliseconds (rounded up): 0 when its
         *     rate is within its share
         */
        public long record(long nanos) {
            synchronized (RequestTimeQuota.this) {
                long now = nanoClock.getAsLong();
                long index = charge(now, nanos);
                long rate = rate(now, index);
                long share = Math.max(1, (long) handlers * windowNanos / Math.max(1, activeNow + activeBefore - activeInBoth));
                if (rate <= share) {
                    return 0;
                }
                long throttleNanos = Math.min(windowNanos, (long) ((double) (rate - share) / share * windowNanos));
                throttledUntil = now + throttleNanos;
                throttled = true;
                return TimeUnit.NANOSECONDS.toMillis(throttleNanos + TimeUnit.MILLISECONDS.toNanos(1) - 1);
            }
        }

        /**
         * Records that a network thread spent {@code nanos} writing this client's responses. It counts
         * in the client's rate, so in the throttle of its next request, but throttles nothing now (as
         * Kafka records a request's network thread time without throttling, once its response is sent).
         */
        public void recordNetwork(long nanos) {
            synchronized (RequestTimeQuota.this) {
                charge(nanoClock.getAsLong(), nanos);
            }
        }

        /** Adds {@code nanos} to the current window's use, moving the client to the window of {@code now}; that window's index. */
        @GuardedBy("RequestTimeQuota.this")
        private long charge(long now, long nanos) {
            long index = roll(now);
            if (lastWindow != index) {
                boolean activeBeforeToo = lastWindow == index - 1;
                usedBefore = activeBeforeToo ? usedNow : 0;
                usedNow = 0;
                activeNow++;
                if (activeBeforeToo) {
                    activeInBoth++;
                }
                lastWindow = index;
            }
            usedNow += Math.max(0, nanos);
            return index;
        }

        /** How much longer the client is throttled, in milliseconds (rounded up); 0 when it is not. */
        public long throttleMs() {
            synchronized (RequestTimeQuota.this) {
                long left = throttled ? throttledUntil - nanoClock.getAsLong() : 0;
                return left <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(left + TimeUnit.MILLISECONDS.toNanos(1) - 1);
            }
        }

        /** Handler and network time per window this client uses now (the sliding window), in nanoseconds. */
        public long rateNanos() {
            synchronized (RequestTimeQuota.this) {
                long now = nanoClock.getAsLong();
                return rate(now, roll(now));
            }
        }

        /** The client's rate as a class: 0 below 1/1024 of a handler's time, one more per doubling, {@value #MAX_COST_CLASS} at most. */
        public int costClass() {
            long fraction = rateNanos() * 1024 / windowNanos;
            return Math.min(MAX_COST_CLASS, 64 - Long.numberOfLeadingZeros(fraction));
        }

        @GuardedBy("RequestTimeQuota.this")
        private long rate(long now, long index) {
            long current;
            long previous;
            if (lastWindow == index) {
                current = usedNow;
                previous = usedBefore;
            } else {
                current = 0;
                previous = lastWindow == index - 1 ? usedNow : 0;
            }
            long intoWindow = now - origin - index * windowNanos;
            return current + (long) (previous * ((double) (windowNanos - intoWindow) / windowNanos));
        }
    }
}
