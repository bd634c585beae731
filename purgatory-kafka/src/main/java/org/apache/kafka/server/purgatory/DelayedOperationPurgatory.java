package org.apache.kafka.server.purgatory;

import io.purgatory.kafka.ModuleInfo;
import io.purgatory.kafka.PurgatoryNames;
import io.purgatory.timer.MockTimer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.server.metrics.KafkaMetricsGroup;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's purgatory (kafka-server-common 4.4.0) on purgatory-core's: operations wait here until they
 * complete or expire.
 *
 * <p><b>Kafka's contract, kept.</b> Its five constructors; {@link #tryCompleteElseWatch} tries the
 * operation, watches it on every key (an empty key list is refused with
 * {@link IllegalArgumentException}), tries it again under its lock and then times it;
 * {@link #checkAndComplete} tries every operation watching a key; {@link #watched()} counts the watch
 * entries linked (with those of completed operations not swept yet) and {@link #numDelayed()} is the
 * timer's {@code size()}; {@link #cancelForKey} takes a key's operations off it and returns them
 * <em>without completing them</em>; {@link #shutdown()} stops the purgatory and closes its timer,
 * leaving pending operations uncompleted. It takes any {@link Timer}: on the module's
 * {@link SystemTimer} (the default), expiry is purgatory-core's; on a foreign timer (Kafka's test
 * {@code MockTimer}) the operation is added to that timer, which runs {@link DelayedOperation#run()}.
 * Kafka's gauges {@code kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize|NumDelayedOperations,delayedOperation=<name>}
 * keep their names and meaning.
 *
 * <p><b>What it improves.</b> Exactly once and no lost wake-up, by core's watch lists: an operation
 * that completes leaves tombstones that reference nothing, so it is unreachable at once whatever
 * {@code purgeInterval} is (Kafka keeps it in every other key's list until the next purge:
 * KAFKA-19763); expiry is never early; {@code cancelForKey} also takes the returned operations off
 * their other keys and their timer, so none is left watched without an expiry. Core's metrics are
 * registered beside Kafka's gauges as {@code io.purgatory:type=DelayedOperationPurgatory,name="<name>-broker<id>"}
 * (with {@code -2}, {@code -3}... for a second purgatory of the same name in the JVM: {@link PurgatoryNames}).
 *
 * <p>Thread-safe: core's purgatory is; the rest is final, {@code shutDown} is an atomic.
 *
 * @param <T> the operations it holds
 */
public class DelayedOperationPurgatory<T extends DelayedOperation> {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperationPurgatory.class);
    /** Kafka's pace of its expiration reaper, for a foreign timer: the longest one advanceClock waits. */
    private static final long REAPER_TIMEOUT_MS = 200L;

    private final String purgatoryName;
    private final Timer timeoutTimer;
    private final boolean timerEnabled;
    /** Whether expiry is core's, on the wheel of the module's SystemTimer; otherwise the timer runs the operation. */
    private final boolean coreExpiry;
    private final io.purgatory.DelayedOperationPurgatory<?> core;
    private final KafkaMetricsGroup metricsGroup = new KafkaMetricsGroup("kafka.server", "DelayedOperationPurgatory");
    private final Map<String, String> metricsTags;
    /** Drives a foreign timer, as Kafka's ExpirationReaper does; null when the timer drives itself or the reaper is off. */
    private final Thread foreignTimerReaper;
    private final AtomicBoolean shutDown = new AtomicBoolean();
    /** The name of core's purgatory and MBean, unique in the JVM (see {@link PurgatoryNames}). */
    private final String coreName;

    public DelayedOperationPurgatory(String purgatoryName, Timer timer, int brokerId, boolean reaperEnabled) {
        this(purgatoryName, timer, brokerId, 1000, reaperEnabled, true);
    }

    public DelayedOperationPurgatory(String purgatoryName, int brokerId) {
        this(purgatoryName, brokerId, 1000);
    }

    public DelayedOperationPurgatory(String purgatoryName, int brokerId, int purgeInterval) {
        this(purgatoryName, new SystemTimer(purgatoryName), brokerId, purgeInterval, true, true);
    }

    public DelayedOperationPurgatory(String purgatoryName, Timer timeoutTimer, int brokerId, int purgeInterval) {
        this(purgatoryName, timeoutTimer, brokerId, purgeInterval, true, true);
    }

    /**
     * @param purgatoryName names the purgatory in metrics and threads
     * @param timeoutTimer expires the operations; closed by {@link #shutdown()}
     * @param brokerId names the reaper thread and core's MBean
     * @param purgeInterval sweep the watch lists once more than this many entries are tombstones
     * @param reaperEnabled whether sweeps (and, for a foreign timer, its advanceClock) run on a thread of the purgatory
     * @param timerEnabled whether operations are timed at all (Kafka's tests turn it off)
     */
    public DelayedOperationPurgatory(String purgatoryName, Timer timeoutTimer, int brokerId, int purgeInterval,
                                     boolean reaperEnabled, boolean timerEnabled) {
        ModuleInfo.announce();
        this.purgatoryName = Objects.requireNonNull(purgatoryName, "purgatoryName");
        this.timeoutTimer = Objects.requireNonNull(timeoutTimer, "timeoutTimer");
        this.timerEnabled = timerEnabled;
        io.purgatory.timer.Timer wheel = timerEnabled && timeoutTimer instanceof SystemTimer own ? own.coreTimer() : null;
        this.coreExpiry = wheel != null;
        // a foreign timer expires the operations itself (it runs DelayedOperation.run()): core's expiries
        // then wait on a timer that nobody advances, and completion takes them off it
        this.coreName = PurgatoryNames.open(purgatoryName, brokerId);
        this.core = DelayedOperation.corePurgatory(coreName, coreExpiry ? wheel : new MockTimer(),
                Math.max(0, purgeInterval), reaperEnabled);
        this.metricsTags = Map.of("delayedOperation", purgatoryName);
        metricsGroup.newGauge("PurgatorySize", this::watched, metricsTags);
        metricsGroup.newGauge("NumDelayedOperations", this::numDelayed, metricsTags);
        if (reaperEnabled && timerEnabled && !coreExpiry) {
            foreignTimerReaper = new Thread(this::driveForeignTimer, "ExpirationReaper-" + brokerId + "-" + purgatoryName);
            foreignTimerReaper.start();
        } else {
            foreignTimerReaper = null;
        }
    }

    /**
     * Tries to complete the operation; if it cannot, watches it on every key, tries once more and times it.
     *
     * @return true if the operation completed in this call
     * @throws IllegalArgumentException if {@code watchKeys} is empty (as Kafka)
     */
    public <K extends DelayedOperationKey> boolean tryCompleteElseWatch(T operation, List<K> watchKeys) {
        if (watchKeys.isEmpty()) {
            throw new IllegalArgumentException("Purgatory " + purgatoryName + ": an operation needs at least one watch key");
        }
        if (DelayedOperation.coreOffer(core, operation, watchKeys)) {
            return true;
        }
        if (timerEnabled && !coreExpiry && !operation.isCompleted()) {
            timeoutTimer.add(operation);
            if (operation.isCompleted()) {
                operation.cancel(); // completed while being added: take it off the timer
            }
        }
        return false;
    }

    /**
     * Tries every operation watching {@code key}.
     *
     * @return how many this call completed
     */
    public <K extends DelayedOperationKey> int checkAndComplete(K key) {
        int completed = core.checkAndComplete(key);
        if (completed > 0 && LOG.isDebugEnabled()) { // three arguments: slf4j would make their array on every call
            LOG.debug("Request key {} unblocked {} {} operations", key, completed, purgatoryName);
        }
        return completed;
    }

    /** Watch entries linked, one per operation and key, with those of completed operations not swept yet. */
    public int watched() {
        return (int) Math.min(Integer.MAX_VALUE, core.watched());
    }

    /** The timer's size: operations (and, on a shared timer, other tasks) timed and neither run nor cancelled. */
    public int numDelayed() {
        return timeoutTimer.size();
    }

    /**
     * Takes every operation watching {@code key} off the purgatory (off its other keys and its timer as
     * well) and returns them, not completed (as Kafka).
     */
    public List<T> cancelForKey(DelayedOperationKey key) {
        List<T> operations = DelayedOperation.withdraw(core, key);
        for (T operation : operations) {
            if (!operation.isCancelled()) {
                operation.cancel(); // a foreign timer still holds it
            }
        }
        return operations;
    }

    /**
     * Stops the purgatory and closes its timer. Pending operations are left uncompleted, as in Kafka
     * (no callback runs), but are let go of at once; the call never waits on an operation.
     */
    public void shutdown() throws Exception {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        if (foreignTimerReaper != null) {
            foreignTimerReaper.join();
        }
        core.close();
        PurgatoryNames.close(coreName);
        timeoutTimer.close();
        metricsGroup.removeMetric("PurgatorySize", metricsTags);
        metricsGroup.removeMetric("NumDelayedOperations", metricsTags);
    }

    private void driveForeignTimer() {
        while (!shutDown.get()) {
            try {
                timeoutTimer.advanceClock(REAPER_TIMEOUT_MS);
            } catch (InterruptedException e) {
                // nobody interrupts this thread on purpose; shutDown ends the loop
            } catch (RuntimeException e) {
                LOG.error("Purgatory {}: the timer's advanceClock failed; going on", purgatoryName, e);
            }
        }
    }
}
