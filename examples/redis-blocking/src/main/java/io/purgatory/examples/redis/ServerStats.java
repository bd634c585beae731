package io.purgatory.examples.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters INFO shows. Thread-safe: each is an atomic counter, updated by any event loop; a
 * reader sees each one's recent value, not a snapshot of all together.
 */
final class ServerStats {

    final long startNanos = System.nanoTime();
    final AtomicInteger connectedClients = new AtomicInteger();
    final LongAdder connectionsReceived = new LongAdder();
    final LongAdder commandsProcessed = new LongAdder();
    /** Blocking pops that parked and were then handed a value. */
    final LongAdder handedOff = new LongAdder();
    /** Blocking pops that parked and timed out. */
    final LongAdder timedOut = new LongAdder();
}
