package io.purgatory.demo.client;

import java.time.Instant;

/**
 * The wall clock in microseconds since the epoch: what a producer stamps on a record and a consumer,
 * maybe in another process on the same machine, compares it with. Stateless; thread-safe.
 */
final class WallClock {
    private WallClock() {
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
