package io.purgatory.demo.client;

/**
 * The counters of a run at one moment, for the live line. Immutable.
 *
 * @param elapsedNanos time since the load started
 * @param sent requests written to the connection (or about to be)
 * @param acked answered {@code NONE}
 * @param timedOut answered {@code REQUEST_TIMED_OUT}
 * @param otherErrors answered with another error code, got no response, or were disconnected
 * @param inFlight sent and without an outcome yet
 */
record Progress(long elapsedNanos, long sent, long acked, long timedOut, long otherErrors, long inFlight) {
    static final Progress START = new Progress(0, 0, 0, 0, 0, 0);
}
