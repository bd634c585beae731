package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.timer.SystemTimer;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;

/**
 * Guards what parking an operation costs, in bytes (never in time): an operation is one object,
 * parking it allocates nothing but a {@link Watch} per key after the first, and the machinery in the
 * operation (all but its header and the user's own fields) stays within 59 bytes, so that with its
 * key's list slot an operation costs at most 64 bytes of machinery. A change that adds an object per
 * parked operation, or fields to it, fails here rather than in a benchmark run later.
 *
 * <p>Bytes are counted with the thread's allocation counter ({@code getThreadAllocatedBytes}) around
 * the offers, once the keys' lists have room for them (their arrays grow by doubling, amortised, and
 * are not what is guarded), and with JOL's layout of the operation class.
 */
class ParkingAllocationTest {

    private static final int WARM = 3_000; // fills each list past 2,048 slots: its array has 4,096
    private static final int MEASURED = 1_000; // stays within those 4,096: no array grows meanwhile

    /** The smallest operation a user writes: one flag. */
    static final class OneFlag extends DelayedOperation {
        boolean ready;

        OneFlag() {
            super(3_600_000);
        }

        @Override
        public boolean tryComplete() {
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }

    @Test
    void parkingAnOperationOnOneKeyAllocatesNothing() {
        assertEquals(0, bytesPerOffer(List.of("k")), "bytes allocated per parked operation, the operation aside");
    }

    @Test
    void parkingAnOperationOnThreeKeysAllocatesOneWatchPerKeyAfterTheFirst() {
        long watch = ClassLayout.parseClass(Watch.class).instanceSize();
        assertEquals(2 * watch, bytesPerOffer(List.of("a", "b", "c")), "bytes allocated per parked operation, the operation aside");
    }

    @Test
    void theMachineryInAnOperationIsAtMost59Bytes() {
        ClassLayout layout = ClassLayout.parseClass(OneFlag.class);
        long machinery = layout.instanceSize() - layout.headerSize() - 1; // less the header and the user's flag
        assertTrue(machinery <= 59,
                () -> machinery + " bytes of machinery in an operation (59 at most, so that with a list slot it is 64):\n" + layout.toPrintable());
    }

    /** Parks MEASURED operations on keys whose lists already have room, on a timer that never fires them; the bytes this thread allocated per offer. */
    private static long bytesPerOffer(List<String> keys) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(), "this JVM counts allocated bytes per thread");
        OneFlag[] warm = new OneFlag[WARM];
        OneFlag[] measured = new OneFlag[MEASURED];
        for (int i = 0; i < WARM; i++) {
            warm[i] = new OneFlag();
        }
        for (int i = 0; i < MEASURED; i++) {
            measured[i] = new OneFlag();
        }
        try (SystemTimer timer = new SystemTimer("ParkingAllocationTest");
             DelayedOperationPurgatory<OneFlag> purgatory =
                     DelayedOperationPurgatory.builder("ParkingAllocationTest").timer(timer).reaperEnabled(false).build()) {
            for (OneFlag op : warm) {
                purgatory.tryCompleteElseWatch(op, keys);
            }
            long idle = threads.getCurrentThreadAllocatedBytes();
            long before = threads.getCurrentThreadAllocatedBytes();
            long counterCost = before - idle; // what reading the counter allocates, if anything
            for (OneFlag op : measured) {
                purgatory.tryCompleteElseWatch(op, keys);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before - counterCost;
            assertEquals(WARM + MEASURED, purgatory.numDelayed(), "every operation parked");
            return allocated / MEASURED;
        }
    }
}
