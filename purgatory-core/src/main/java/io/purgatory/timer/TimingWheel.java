package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import org.jspecify.annotations.Nullable;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A hierarchical timing wheel (Varghese and Lauck, "Hashed and Hierarchical Timing Wheels", 1987;
 * the layout of Kafka's {@code TimingWheel}) over integer ticks.
 *
 * <p>Level 0 has {@code wheelSize} buckets of one tick each. Level {@code i} has buckets of
 * {@code wheelSize^i} ticks (its <em>span</em>), so it covers {@code wheelSize^(i+1)} ticks (its
 * <em>interval</em>). Levels above 0 are created when a deadline first needs them. A task goes into
 * the lowest level whose interval, counted from that level's current time, reaches its due tick. A
 * bucket of level {@code i > 0} comes due at the start of its span; its tasks are then re-added and
 * fall into a lower level, until at level 0 they come due on their own tick.
 *
 * <p>Invariants, for every level {@code i} with {@code v = current(i) / span(i)}:
 * <ul>
 *   <li>{@code current(i)} is {@code currentTick} rounded down to a multiple of {@code span(i)};</li>
 *   <li>every task in a bucket of level {@code i} has {@code dueTick / span(i)} in
 *       {@code [v, v + wheelSize)}, so the buckets of a level never mix two rounds of the wheel, and
 *       a bucket holds tasks of one {@code dueTick / span(i)} only, whose start is the bucket's
 *       {@code dueTick};</li>
 *   <li>a bit of {@code occupied} is set if and only if its bucket is not empty.</li>
 * </ul>
 * A task is never handed out before its due tick: it is expired only when
 * {@code dueTick <= currentTick}.
 *
 * <p>With a power-of-two {@code wheelSize} every span is a power of two too, and the wheel finds a
 * bucket with shifts and masks; with any other size it divides (a 64-bit division per level touched).
 * Ticks are never negative (they count from the timer's start).
 *
 * <p>Not thread-safe: one thread (a {@link SystemTimer}'s reaper) owns the wheel and every task
 * linked into it.
 */
final class TimingWheel {

    private final int wheelSize;
    /** {@code wheelSize - 1} when wheelSize is a power of two, else -1: the index is then a mask. */
    private final long indexMask;
    private Level[] levels;
    private int levelCount;
    private long currentTick;

    TimingWheel(int wheelSize, long startTick) {
        if (wheelSize < 2) {
            throw new IllegalArgumentException("wheelSize must be at least 2: " + wheelSize);
        }
        this.wheelSize = wheelSize;
        this.indexMask = Integer.bitCount(wheelSize) == 1 ? wheelSize - 1 : -1;
        this.currentTick = startTick;
        this.levels = new Level[4];
        this.levels[0] = new Level(1, startTick);
        this.levelCount = 1;
    }

    // Visible for testing
    long currentTick() {
        return currentTick;
    }

    // Visible for testing
    int levelCount() {
        return levelCount;
    }

    /**
     * Links task into the bucket for its {@code dueTick}, creating overflow levels as needed.
     *
     * @return false, linking nothing, if the task is already due ({@code dueTick <= currentTick})
     */
    boolean add(TimerNode task) {
        long due = TimerNodes.dueTick(task);
        if (due <= currentTick) {
            return false;
        }
        for (int i = 0; ; i++) {
            Level level = i < levelCount ? levels[i] : addLevel();
            if (level.interval == Long.MAX_VALUE || due - level.current < level.interval) {
                long round = level.round(due);
                Bucket bucket = level.buckets[index(round)];
                if (bucket.isEmpty()) {
                    TimerNodes.dueTick(bucket, level.start(due));
                    level.setOccupied(bucket.index);
                }
                bucket.add(task);
                return true;
            }
        }
    }

    /** Unlinks a task that {@link #add} linked and that has not been handed out yet. O(1). */
    void remove(TimerNode task) {
        if (TaskList.unlink(task) instanceof Bucket emptied) {
            emptied.level.clearOccupied(emptied.index);
        }
    }

    /**
     * Moves the wheel to {@code nowTick}, bucket by bucket in due order. Each due bucket is emptied;
     * its tasks that are due go to {@code expired} (in due-tick order across calls and levels), the
     * others are re-added to a lower level. {@code expired} must not call back into the wheel.
     */
    void advance(long nowTick, Consumer<TimerNode> expired) {
        while (true) {
            Bucket bucket = earliestBucket();
            if (bucket == null || TimerNodes.dueTick(bucket) > nowTick) {
                break;
            }
            setCurrentTick(TimerNodes.dueTick(bucket));
            bucket.level.clearOccupied(bucket.index);
            // the bucket is emptied at once and its chain walked: each node gets two null stores (which
            // the GC's write barrier skips) instead of an unlink's two stores into its neighbours; a
            // task moved down goes to a lower level, never back into this bucket
            TimerNode task = bucket.detachAll();
            while (task != bucket) {
                assert task != null; // the chain ends at the sentinel
                TimerNode next = TimerNodes.next(task);
                TimerNodes.prev(task, null);
                TimerNodes.next(task, null);
                if (TimerNodes.state(task) != TimerNodes.CANCELLED && !add(task)) { // a cancelled one is queued for remove(): unlinked already
                    expired.accept(task);
                }
                task = next;
            }
        }
        if (nowTick > currentTick) {
            setCurrentTick(nowTick);
        }
    }

    /** The due tick of the earliest non-empty bucket, or {@link Long#MAX_VALUE} if there is none. */
    long nextDueTick() {
        Bucket bucket = earliestBucket();
        return bucket == null ? Long.MAX_VALUE : TimerNodes.dueTick(bucket);
    }

    private @Nullable Bucket earliestBucket() {
        Bucket earliest = null;
        for (int i = 0; i < levelCount; i++) {
            Bucket b = levels[i].firstOccupied();
            if (b != null && (earliest == null || TimerNodes.dueTick(b) < TimerNodes.dueTick(earliest))) {
                earliest = b;
            }
        }
        return earliest;
    }

    private void setCurrentTick(long tick) {
        currentTick = tick;
        for (int i = 0; i < levelCount; i++) {
            Level level = levels[i];
            level.current = level.start(tick);
        }
    }

    private Level addLevel() {
        Level top = levels[levelCount - 1];
        if (top.interval == Long.MAX_VALUE) {
            throw new AssertionError("the top level covers every tick");
        }
        long span = top.interval;
        Level level = new Level(span, currentTick);
        if (levelCount == levels.length) {
            levels = Arrays.copyOf(levels, levelCount * 2);
        }
        levels[levelCount++] = level;
        return level;
    }

    private int index(long round) {
        return (int) (indexMask >= 0 ? round & indexMask : round % wheelSize);
    }

    /** One level of the hierarchy: {@code wheelSize} buckets of {@code span} ticks each. */
    private final class Level {
        final long span;
        /** log2(span) when span is a power of two (a power-of-two wheel), else -1: divisions are then shifts. */
        final int spanShift;
        /** span * wheelSize, or Long.MAX_VALUE if that overflows: the top level then covers all. */
        final long interval;
        final Bucket[] buckets;
        /** Bit i set if and only if buckets[i] is not empty. */
        final long[] occupied;
        long current;

        /** A level of {@code span}-tick buckets, its current time {@code tick} rounded down to the span. */
        Level(long span, long tick) {
            this.span = span;
            this.spanShift = Long.bitCount(span) == 1 ? Long.numberOfTrailingZeros(span) : -1;
            this.interval = span > Long.MAX_VALUE / wheelSize ? Long.MAX_VALUE : span * wheelSize;
            this.current = start(tick);
            this.buckets = new Bucket[wheelSize];
            for (int i = 0; i < wheelSize; i++) {
                buckets[i] = new Bucket(this, i);
            }
            this.occupied = new long[(wheelSize + 63) >>> 6];
        }

        /** Which span of this level {@code tick} falls in: {@code tick / span}. */
        long round(long tick) {
            return spanShift >= 0 ? tick >>> spanShift : tick / span;
        }

        /** The start of the span {@code tick} falls in: {@code tick} rounded down to a multiple of span. */
        long start(long tick) {
            return spanShift >= 0 ? tick & -span : tick - tick % span;
        }

        void setOccupied(int i) {
            occupied[i >>> 6] |= 1L << i;
        }

        void clearOccupied(int i) {
            occupied[i >>> 6] &= ~(1L << i);
        }

        /** The first occupied bucket from the current round onwards, wrapping around: the earliest. */
        @Nullable Bucket firstOccupied() {
            int from = index(round(current));
            int i = nextSetBit(from, wheelSize);
            if (i < 0) {
                i = nextSetBit(0, from);
            }
            return i < 0 ? null : buckets[i];
        }

        /** The lowest set bit in [from, to), or -1. */
        private int nextSetBit(int from, int to) {
            int word = from >>> 6;
            long bits = occupied[word] & (-1L << from);
            while (true) {
                if (bits != 0) {
                    int i = (word << 6) + Long.numberOfTrailingZeros(bits);
                    return i < to ? i : -1;
                }
                if (++word << 6 >= to) {
                    return -1;
                }
                bits = occupied[word];
            }
        }
    }

    /** A bucket: the tasks of one level whose due ticks fall in one span, starting at its own {@code dueTick}. */
    private static final class Bucket extends TaskList {
        final Level level;
        final int index;

        Bucket(Level level, int index) {
            this.level = level;
            this.index = index;
        }
    }
}
