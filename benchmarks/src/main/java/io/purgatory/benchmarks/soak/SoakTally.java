package io.purgatory.benchmarks.soak;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the soak saw, over every round: how operations were answered, the gauges before and after
 * close, and the violations (the first few described).
 *
 * <p>Thread-safe for {@link #cancelCalled} and {@link #threw}, which the rounds' threads call: a
 * {@link LongAdder}, a {@link ConcurrentHashMap} and the monitor guarding the described violations;
 * everything else is called by the thread running the rounds.
 */
final class SoakTally {

    private static final int DESCRIBED = 10;

    private final Map<SoakOperation.Outcome, Long> outcomes = new EnumMap<>(SoakOperation.Outcome.class);
    private final LongAdder cancelledByKey = new LongAdder();
    private final Map<Integer, Long> maxWatchedBeforeClose = new TreeMap<>();
    private final List<String> described = new ArrayList<>();
    private final Map<String, LongAdder> thrown = new ConcurrentHashMap<>();
    private long offered;
    private long offeredAfterClose;
    private long lost;
    private long twice;
    private long beforeCloseViolations;
    private long numDelayedAfterClose;
    private long roundsWatchedAfterClose;
    private long maxWatchedAfterClose;
    private int rounds;

    /** cancelForKey completed count operations. */
    void cancelCalled(int count) {
        cancelledByKey.add(count);
    }

    /** A racing round's workers offered at least count operations after close() had returned. */
    void offeredAfterClose(long count) {
        offeredAfterClose += count;
    }

    /**
     * A call to the purgatory threw: a violation (the callers in the soak use it as documented).
     *
     * @param where the round, the operation and its state, for the description
     */
    void threw(String call, RuntimeException e, String where) {
        thrown.computeIfAbsent(call + " threw " + e.getClass().getSimpleName(), k -> new LongAdder()).increment();
        StackTraceElement[] stack = e.getStackTrace();
        violation(call + " threw " + e + (stack.length > 0 ? " at " + stack[0] : "") + " (" + where + ")");
    }

    /** What threw how often: "call threw ExceptionClass" to a count. */
    Map<String, Long> thrown() {
        Map<String, Long> counts = new TreeMap<>();
        thrown.forEach((what, count) -> counts.put(what, count.sum()));
        return counts;
    }

    /** A draining round's gauges once everything was answered, before close. */
    void beforeClose(int purgeInterval, long numDelayed, long watched) {
        maxWatchedBeforeClose.merge(purgeInterval, watched, Math::max);
        if (numDelayed != 0) {
            violation("numDelayed() is " + numDelayed + " before close with every operation answered");
            beforeCloseViolations++;
        }
        if (purgeInterval == 0 && watched != 0) {
            violation("watched() is " + watched + " before close with purgeInterval 0 and every operation answered");
            beforeCloseViolations++;
        }
    }

    /** A round's gauges after close. */
    void afterClose(int round, long numDelayed, long watched) {
        rounds++;
        numDelayedAfterClose += numDelayed;
        maxWatchedAfterClose = Math.max(maxWatchedAfterClose, watched);
        if (watched != 0) {
            roundsWatchedAfterClose++;
        }
        if (numDelayed != 0 || watched != 0) {
            violation("round " + round + ": after close numDelayed() " + numDelayed + ", watched() " + watched);
        }
    }

    /** Checks one operation after its round. */
    void check(int round, int index, SoakOperation op) {
        offered++;
        if (op == null || op.outcome() == null) {
            lost++;
            violation("round " + round + ", operation " + index + " never answered"
                    + (op == null ? " (never created)" : ": " + op.describe()));
            return;
        }
        outcomes.merge(op.outcome(), 1L, Long::sum);
        if (op.answeredTwice()) {
            twice++;
            violation("round " + round + ", operation " + index + " answered twice: " + op.describe());
        } else if (!op.answeredOnce()) {
            lost++;
            violation("round " + round + ", operation " + index + " answered inconsistently: " + op.describe());
        }
    }

    private synchronized void violation(String what) {
        if (described.size() < DESCRIBED) {
            described.add(what);
        }
    }

    boolean passed() {
        return lost == 0 && twice == 0 && beforeCloseViolations == 0 && numDelayedAfterClose == 0
                && roundsWatchedAfterClose == 0 && thrown.isEmpty() && answered() == offered;
    }

    long offered() {
        return offered;
    }

    /** Operations answered, by any path. */
    long answered() {
        return outcomes.values().stream().mapToLong(Long::longValue).sum();
    }

    long lost() {
        return lost;
    }

    long answeredTwice() {
        return twice;
    }

    /** Draining rounds whose gauges were not 0 (numDelayed(); watched() with purgeInterval 0) before close. */
    long beforeCloseViolations() {
        return beforeCloseViolations;
    }

    /** The sum over rounds of numDelayed() after close. */
    long numDelayedAfterClose() {
        return numDelayedAfterClose;
    }

    /** The largest watched() after close in any round. */
    long maxWatchedAfterClose() {
        return maxWatchedAfterClose;
    }

    synchronized List<String> violations() {
        return List.copyOf(described);
    }

    /** The one-line verdict. */
    String verdict(double seconds) {
        return String.format(Locale.ROOT,
                "soak %s: %,d operations in %d rounds, %.1f s: completed %,d, expired %,d (offered after "
                        + "close, at least: %,d), cancelled %,d (cancelForKey returned %,d), "
                        + "lost %d, answered twice %d, exceptions %s; "
                        + "after close numDelayed() 0 in every round: %s, watched() 0 in every round: %s ("
                        + "%d rounds left some, at most %d); before close (draining rounds, all answered) numDelayed() 0 and, with "
                        + "purgeInterval 0, watched() 0: %s; max watched() before close by purgeInterval: %s",
                passed() ? "PASS" : "FAIL", offered, rounds, seconds,
                outcomes.getOrDefault(SoakOperation.Outcome.COMPLETED, 0L),
                outcomes.getOrDefault(SoakOperation.Outcome.EXPIRED, 0L), offeredAfterClose,
                outcomes.getOrDefault(SoakOperation.Outcome.CANCELLED, 0L), cancelledByKey.sum(), lost, twice,
                thrown.isEmpty() ? "none" : thrown(),
                numDelayedAfterClose == 0 ? "yes" : "NO", roundsWatchedAfterClose == 0 ? "yes" : "NO",
                roundsWatchedAfterClose, maxWatchedAfterClose, beforeCloseViolations == 0 ? "yes" : "NO",
                maxWatchedBeforeClose);
    }
}
