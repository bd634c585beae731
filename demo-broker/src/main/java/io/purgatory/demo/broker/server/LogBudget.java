package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.log.LogMemory;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.ThrottledWarning;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition logs' share of the broker's {@link MemoryBudget} ({@link MemoryBudget.Kind#LOGS}),
 * and the broker-wide retention that keeps them in it: before an append that the share has too
 * little room for, {@link #makeRoom} drops the oldest batches of the largest log, then of the next largest, as
 * {@code retention.bytes} drops a partition's oldest. It keeps a slack free (a sixty-fourth of the
 * budget): when less than the append and the slack is free, it drops until the append and twice the
 * slack are, so appends on the other request handlers at once find room, and a flood does not scan
 * the partitions on every append. So a client producing more than the budget holds moves the log
 * start offsets of the largest logs first (a consumer behind them gets {@code OFFSET_OUT_OF_RANGE}
 * and resets, as after retention), and a small partition keeps its records until every log is as
 * small. An append that still does not fit (a batch larger than the share, or concurrent appends
 * taking more than the slack) is refused by its log, and its produce answered
 * {@code KAFKA_STORAGE_ERROR}; a batch larger than the whole share makes no log give way.
 *
 * <p>Thread-safe: the budget is; each log is changed under its partition's lock, one at a time,
 * never two partitions' locks at once. Two appends making room at once may drop a little more than
 * needed, never less.
 */
final class LogBudget implements LogMemory {
    private static final Logger LOG = LoggerFactory.getLogger(LogBudget.class);
    /** The slack {@link #makeRoom} frees beyond the append, in parts of the budget. */
    private static final int SLACK_DIVISOR = 64;

    private final MemoryBudget budget;
    private final ThrottledWarning dropped = new ThrottledWarning(LOG::warn, 10_000, System::nanoTime);

    LogBudget(MemoryBudget budget) {
        this.budget = budget;
    }

    @Override
    public boolean tryHold(long bytes) {
        return budget.tryCharge(MemoryBudget.Kind.LOGS, bytes);
    }

    @Override
    public void release(long bytes) {
        budget.release(MemoryBudget.Kind.LOGS, bytes);
    }

    /**
     * Makes room for an append holding {@code bytes} and the slack, if the logs' share has too little
     * now, by dropping the oldest batches of the largest logs among {@code topics}.
     */
    void makeRoom(long bytes, Collection<TopicRegistry.Topic> topics) {
        long share = budget.shareBytes(MemoryBudget.Kind.LOGS);
        long slack = budget.limitBytes() / SLACK_DIVISOR;
        if (bytes > share || budget.fits(MemoryBudget.Kind.LOGS, bytes + slack)) {
            return; // larger than the whole share, it is refused: no log gives way for it
        }
        long wanted = Math.min(share, bytes + 2 * slack);
        long freed = 0;
        String largestName = null;
        while (!budget.fits(MemoryBudget.Kind.LOGS, wanted)) {
            Partition largest = largest(topics);
            if (largest == null) {
                break; // the logs hold nothing more
            }
            long excess = budget.used(MemoryBudget.Kind.LOGS) + wanted - share;
            freed += largest.dropOldest(Math.max(1, excess));
            if (largestName == null) {
                largestName = largest.toString();
            }
        }
        if (freed > 0) {
            dropped.warn("memory budget: the logs hold their share of " + share
                    + " bytes (--memory-budget-bytes); dropped the oldest " + freed + " bytes of the largest logs (" + largestName
                    + " first) to take an append");
        }
    }

    /** The partition whose log holds the most, or null when no log holds anything. */
    private static Partition largest(Collection<TopicRegistry.Topic> topics) {
        Partition largest = null;
        long most = 0;
        for (TopicRegistry.Topic topic : topics) {
            for (Partition partition : topic.partitions()) {
                long held = partition.heldBytes();
                if (held > most) {
                    largest = partition;
                    most = held;
                }
            }
        }
        return largest;
    }
}
