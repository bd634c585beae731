package io.purgatory.demo.client;

import java.util.Locale;

/**
 * A window of {@link GroupBench}'s heartbeat run between two {@link Snapshot}s: the heartbeat rate
 * the broker sustained and what each heartbeat cost it, net of what the broker burns with no
 * member at all (its simulated followers, timers). Immutable.
 *
 * @param start the counters at the window's start
 * @param end the counters at its end
 * @param idleBrokerCores the broker's CPU time per second of wall time before any member joined; -1 when unknown
 * @param purgatoryStart the heartbeat purgatory just before the window
 * @param purgatoryEnd the heartbeat purgatory just after it
 */
record HeartbeatWindow(Snapshot start, Snapshot end, double idleBrokerCores, HeartbeatPurgatory purgatoryStart,
                       HeartbeatPurgatory purgatoryEnd) {

    /**
     * Counters at one instant.
     *
     * @param nanos {@link System#nanoTime()}
     * @param answered heartbeats answered so far
     * @param errors answered with an error code (any but NONE and REBALANCE_IN_PROGRESS), or failed
     * @param late turns skipped because the member's previous heartbeat was still unanswered
     * @param rejoins heartbeats answered REBALANCE_IN_PROGRESS, after which the member rejoined
     * @param benchCpuNanos the bench process's CPU time (it shares the machine)
     * @param brokerCpuNanos the broker process's user + system CPU time; -1 when unknown
     */
    record Snapshot(long nanos, long answered, long errors, long late, long rejoins, long benchCpuNanos, long brokerCpuNanos) {
    }

    double seconds() {
        return (end.nanos() - start.nanos()) / 1e9;
    }

    long answered() {
        return end.answered() - start.answered();
    }

    double heartbeatsPerSecond() {
        return answered() / seconds();
    }

    /** The broker's CPU time over the window's length: cores it kept busy; -1 when unknown. */
    double brokerCores() {
        return start.brokerCpuNanos() < 0 ? -1 : (end.brokerCpuNanos() - start.brokerCpuNanos()) / 1e9 / seconds();
    }

    /** The broker's CPU time per heartbeat answered, in microseconds, idle CPU included; -1 when unknown. */
    double brokerMicrosPerHeartbeat() {
        return brokerCores() < 0 || answered() == 0 ? -1 : brokerCores() * 1e6 / heartbeatsPerSecond();
    }

    /** As {@link #brokerMicrosPerHeartbeat()}, less the broker's idle CPU; -1 when unknown. */
    double netBrokerMicrosPerHeartbeat() {
        return brokerCores() < 0 || idleBrokerCores < 0 || answered() == 0 ? -1
                : (brokerCores() - idleBrokerCores) * 1e6 / heartbeatsPerSecond();
    }

    /** DelayedHeartbeats completed per heartbeat answered (1 when each completes its member's previous one); -1 when unknown. */
    double completionsPerHeartbeat() {
        return purgatoryStart.completed() < 0 || answered() == 0 ? -1 : (purgatoryEnd.completed() - purgatoryStart.completed()) / answered();
    }

    /** The summary lines. */
    String describe() {
        return String.format(Locale.ROOT, """
                window %.1f s: %d heartbeats answered (%.0f/s), %d with an error, %d late (previous one unanswered), %d rejoins
                broker: %s cores busy, idle %s; CPU per heartbeat %s us, %s us net of idle; bench: %.2f cores
                heartbeat purgatory: %s DelayedHeartbeats parked, %s watch entries; %s completed per heartbeat""",
                seconds(), answered(), heartbeatsPerSecond(), end.errors() - start.errors(), end.late() - start.late(),
                end.rejoins() - start.rejoins(),
                known(brokerCores(), "%.2f"), known(idleBrokerCores, "%.2f"), known(brokerMicrosPerHeartbeat(), "%.2f"),
                known(netBrokerMicrosPerHeartbeat(), "%.2f"), (end.benchCpuNanos() - start.benchCpuNanos()) / 1e9 / seconds(),
                known(purgatoryEnd.parked(), "%.0f"), known(purgatoryEnd.watches(), "%.0f"), known(completionsPerHeartbeat(), "%.3f"));
    }

    /** {@code value} formatted, or "n/a" when negative (unknown). */
    static String known(double value, String format) {
        return value < 0 ? "n/a" : String.format(Locale.ROOT, format, value);
    }
}
