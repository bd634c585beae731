package io.purgatory.demo.broker.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One memory budget for what clients can make the broker hold: the partition logs' record batches,
 * parked operations (by the partitions or keys they watch), committed offsets with their metadata,
 * groups, and requests and responses in flight. Each holder charges what it creates, in estimated
 * heap bytes (payload plus the objects around it), where it creates it, and releases the same
 * amount where it goes; the budget only counts, it frees nothing itself.
 *
 * <p>Two ways to charge. {@link #tryCharge} is for what is held until something else happens (log
 * batches, parked operations, offsets, groups): it succeeds only while that kind stays within its
 * {@linkplain #shareBytes share} of the budget (logs a half, parked operations and offsets an eighth
 * each, groups a sixteenth), and a caller that is refused answers its client with Kafka's error for
 * that request. So a flood of one kind never locks out the others, and the shares leave
 * {@linkplain #reserveBytes() three sixteenths} for requests and responses in flight, the room in
 * which a good client's next request is read and answered whatever is held. {@link #charge} is
 * for requests and responses already read or built (they must be handled or written): it always
 * succeeds, and the connections read no more while {@link #inFlightFull()}.
 *
 * <p>Refusals are counted by kind and logged as one WARN line per kind and 10 s at most, with a
 * count of the others ({@link #refused}).
 *
 * <p>Thread-safe and lock-free: what each kind holds is an {@link AtomicLong} changed by
 * compare-and-set (a {@code tryCharge}, so no two charges together pass the share) or add, the total
 * an {@link AtomicLong} changed by add after it, the refusals {@link LongAdder}s; the maps are filled
 * in the constructor and only read afterwards, and the warnings are thread-safe. Invariant, at every quiescent point (no charge or release running):
 * {@code used() == sum over kinds of used(kind)}, every {@code used(kind) >= 0}, and a
 * {@code tryCharge} never takes its kind past {@code shareBytes(kind)}; so only {@code charge}
 * (in-flight bytes) can take the total past {@code limitBytes() - reserveBytes()}, by at most what
 * connections read before they stop.
 */
public final class MemoryBudget {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryBudget.class);
    /** A refusal is logged at most once per this period, with a count of the others. */
    private static final long WARNING_PERIOD_MS = 10_000;
    /** The shares are counted in sixteenths of the budget. */
    private static final int SHARE_DENOMINATOR = 16;

    /** What holds memory. */
    public enum Kind {
        /** Record batches in the partitions' logs. */
        LOGS("logs", 8),
        /** Parked produces and fetches, by what they watch. */
        PARKED("parked", 2),
        /** Committed offsets with their metadata. */
        OFFSETS("offsets", 2),
        /** Groups. */
        GROUPS("groups", 1),
        /** Requests read and not yet handled, responses built and not yet written: the rest of the budget. */
        IN_FLIGHT("in_flight", 3);

        private final String label;
        private final int sixteenths;

        Kind(String label, int sixteenths) {
            this.label = label;
            this.sixteenths = sixteenths;
        }

        /** The name in metrics and log lines. */
        public String label() {
            return label;
        }
    }

    private final long limitBytes;
    private final AtomicLong used = new AtomicLong();
    private final Map<Kind, AtomicLong> usedByKind = new EnumMap<>(Kind.class);
    private final Map<Kind, LongAdder> refusedByKind = new EnumMap<>(Kind.class);
    private final Map<Kind, ThrottledWarning> refusalWarnings = new EnumMap<>(Kind.class);

    /** @param limitBytes the budget: at least 1 */
    public MemoryBudget(long limitBytes) {
        if (limitBytes < 1) {
            throw new IllegalArgumentException("a memory budget of " + limitBytes + " bytes");
        }
        this.limitBytes = limitBytes;
        for (Kind kind : Kind.values()) {
            usedByKind.put(kind, new AtomicLong());
            refusedByKind.put(kind, new LongAdder());
            refusalWarnings.put(kind, new ThrottledWarning(LOG::warn, WARNING_PERIOD_MS, System::nanoTime));
        }
    }

    /** A budget so large that it never refuses: for tests and tools that bound nothing. */
    public static MemoryBudget unbounded() {
        return new MemoryBudget(Long.MAX_VALUE / 4);
    }

    /**
     * The default budget: half of the heap the JVM may grow to ({@link Runtime#maxMemory()}), so that
     * what the broker's estimates miss, the garbage not yet collected and the rest of the process fit
     * in the other half.
     */
    public static long defaultLimitBytes() {
        return Runtime.getRuntime().maxMemory() / 2;
    }

    /** The budget configured ({@code configured} bytes), or {@link #defaultLimitBytes()} when it is -1. */
    public static MemoryBudget of(long configured) {
        return new MemoryBudget(configured < 0 ? defaultLimitBytes() : configured);
    }

    /**
     * Charges {@code bytes} of {@code kind} if the kind stays within its share.
     *
     * @return false, charging nothing, when it would not
     */
    public boolean tryCharge(Kind kind, long bytes) {
        if (bytes <= 0) {
            return true;
        }
        long share = shareBytes(kind);
        AtomicLong ofKind = usedByKind.get(kind);
        long now;
        do {
            now = ofKind.get();
            if (now + bytes > share) {
                return false;
            }
        } while (!ofKind.compareAndSet(now, now + bytes));
        used.addAndGet(bytes);
        return true;
    }

    /** Charges {@code bytes} of {@code kind} whatever the total: for what is already read or built. */
    public void charge(Kind kind, long bytes) {
        if (bytes > 0) {
            used.addAndGet(bytes);
            usedByKind.get(kind).addAndGet(bytes);
        }
    }

    /** Releases {@code bytes} of {@code kind} charged before. */
    public void release(Kind kind, long bytes) {
        if (bytes > 0) {
            used.addAndGet(-bytes);
            usedByKind.get(kind).addAndGet(-bytes);
        }
    }

    /**
     * Counts and logs (throttled) a refusal: {@code what} says what was refused and what the client
     * got, e.g. "a produce of 1048576 bytes: KAFKA_STORAGE_ERROR".
     */
    public void refused(Kind kind, String what) {
        refusedByKind.get(kind).increment();
        refusalWarnings.get(kind).warn("memory budget: " + kind.label() + " hold " + used(kind) + " of their " + shareBytes(kind) + " bytes (of "
                + limitBytes + ", --memory-budget-bytes): refused " + what);
    }

    /** Whether connections should read no more requests: the whole budget is used. */
    public boolean inFlightFull() {
        return used.get() >= limitBytes;
    }

    /** Whether {@code bytes} more of {@code kind} could be charged with {@link #tryCharge} now. */
    public boolean fits(Kind kind, long bytes) {
        return usedByKind.get(kind).get() + bytes <= shareBytes(kind);
    }

    public long limitBytes() {
        return limitBytes;
    }

    /** The most {@code kind} may hold through {@link #tryCharge}. */
    public long shareBytes(Kind kind) {
        return limitBytes / SHARE_DENOMINATOR * kind.sixteenths;
    }

    /** The part of the budget {@link #tryCharge} leaves for requests and responses in flight. */
    public long reserveBytes() {
        return shareBytes(Kind.IN_FLIGHT);
    }

    /** Bytes charged now, all kinds. */
    public long used() {
        return used.get();
    }

    /** Bytes of {@code kind} charged now. */
    public long used(Kind kind) {
        return usedByKind.get(kind).get();
    }

    /** Refusals of {@code kind} since the start. */
    public long refusals(Kind kind) {
        return refusedByKind.get(kind).sum();
    }
}
