package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.OperationState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a {@link PositionIndex} hands its list besides the due watches (see PositionIndexTest): its
 * live operations for a walk, its live watches when the list is detached, whether anything is due
 * in its run or its heap, and tombstones taken out in any part of it.
 */
class PositionIndexContentsTest {

    private final PositionIndex index = new PositionIndex();

    private PositionWatch add(long position) {
        PositionWatch watch = new PositionWatch(new TestOperation(1_000), null);
        watch.indexed = true;
        index.add(position, watch);
        return watch;
    }

    private void bury(PositionWatch watch) {
        watch.op = null;
        index.buried();
    }

    @Test
    void hasDueLooksAtTheLowestOfTheRunAndOfTheHeap() {
        assertFalse(index.hasDue(Long.MAX_VALUE), "empty");
        add(10);
        assertFalse(index.hasDue(9));
        assertTrue(index.hasDue(10), "at the position: due");
        PositionWatch low = add(5); // below the run's tail: into the heap
        assertEquals(1, index.heapSize());
        assertFalse(index.hasDue(4));
        assertTrue(index.hasDue(5), "the heap's lowest is due");
        assertSame(low, index.pollDue(5));
        assertFalse(index.hasDue(9), "the heap is empty; the run's lowest is 10");
        assertTrue(index.hasDue(10));
    }

    @Test
    void liveOperationsAreEveryLiveWatchOfTheRunAndTheHeapAndNoTombstone() {
        List<PositionWatch> watches = new ArrayList<>();
        for (long position : new long[] {10, 20, 30, 5, 15, 25}) { // three in the run, three in the heap
            watches.add(add(position));
        }
        bury(watches.get(1));
        bury(watches.get(4));
        Set<OperationState> expected = new HashSet<>();
        for (PositionWatch w : watches) {
            if (w.op != null) {
                expected.add(w.op);
            }
        }
        OperationState[] live = index.liveOperations();
        assertEquals(4, live.length);
        assertEquals(expected, new HashSet<>(Arrays.asList(live)));
    }

    @Test
    void drainingCopiesTheLiveWatchesAfterTheOffsetAndEmptiesTheIndex() {
        PositionWatch a = add(10);
        PositionWatch dead = add(20);
        PositionWatch b = add(30);
        PositionWatch c = add(5); // heap
        bury(dead);
        Object[] into = new Object[2 + index.size() - index.deadCount()];
        into[0] = "first";
        into[1] = "second";
        assertEquals(1, index.drainLive(into, 2), "one tombstone dropped");
        assertArrayEquals(new Object[] {"first", "second", a, b, c}, into);
        assertFalse(a.indexed || b.indexed || c.indexed, "the drained watches are no longer indexed");
        assertTrue(index.isEmpty());
        assertEquals(0, index.size());
        assertEquals(0, index.deadCount());
        assertEquals(0, index.heapSize());
        assertNull(index.pollDue(Long.MAX_VALUE));
        PositionWatch again = add(1);
        assertSame(again, index.pollDue(1), "usable after draining");
    }

    @Test
    void tombstonesAreRemovedFromTheRunAndTheHeapAndTheHeapStaysOrdered() {
        List<PositionWatch> run = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            run.add(add(100 + i));
        }
        List<PositionWatch> heap = new ArrayList<>();
        for (int i = 19; i >= 0; i--) {
            heap.add(add(i * 5)); // descending: every one into the heap
        }
        assertEquals(20, index.heapSize());
        for (int i = 0; i < 20; i += 2) {
            bury(run.get(i));
            bury(heap.get(i));
        }
        assertEquals(20, index.removeDeadIfHalf(), "half are tombstones: all removed");
        assertEquals(20, index.size());
        assertEquals(10, index.heapSize());
        long previous = Long.MIN_VALUE;
        int taken = 0;
        for (PositionWatch w; (w = index.pollDue(Long.MAX_VALUE)) != null; taken++) {
            assertTrue(w.op != null, "no tombstone is left");
            long position = heap.contains(w) ? (19 - heap.indexOf(w)) * 5L : 100 + run.indexOf(w);
            assertTrue(position >= previous, "lowest first after the heap was rebuilt");
            previous = position;
        }
        assertEquals(20, taken);
    }

    @Test
    void anIndexWithNoTombstoneRemovesNothing() {
        add(1);
        add(2);
        assertEquals(0, index.removeDead());
        assertEquals(0, index.removeDeadIfHalf());
        assertEquals(2, index.size());
    }

    @Test
    void theRunWrapsAroundItsRingAndGrowsInOrder() {
        List<PositionWatch> watches = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            watches.add(add(i));
        }
        for (int i = 0; i < 5; i++) {
            assertSame(watches.get(i), index.pollDue(i)); // the head moves on: later adds wrap around
        }
        for (int i = 6; i < 40; i++) {
            watches.add(add(i)); // wraps, then grows twice, copying from the head
        }
        assertEquals(0, index.heapSize());
        for (int i = 5; i < 40; i++) {
            assertSame(watches.get(i), index.pollDue(Long.MAX_VALUE), "position " + i);
        }
        assertTrue(index.isEmpty());
    }

    @Test
    void theArraysShrinkBackAsTheRunEmptiesButNotAtAQuarter() {
        assertEquals(16, index.capacity(), "8 for the run, 8 for the heap");
        for (int i = 0; i < 32; i++) {
            add(i);
        }
        assertEquals(32 + 8, index.capacity());
        for (int i = 0; i < 24; i++) {
            index.pollDue(i);
        }
        assertEquals(32 + 8, index.capacity(), "8 of 32: a quarter full, not less: kept");
        index.pollDue(24);
        assertEquals(16 + 8, index.capacity(), "7 of 32: halved");
        for (int i = 25; i < 32; i++) {
            index.pollDue(i);
        }
        assertEquals(16, index.capacity(), "back to the smallest arrays, and no smaller");
    }

    @Test
    void theHeapShrinksBackAsItEmptiesButNotAtAQuarter() {
        add(1_000);
        for (int i = 31; i >= 0; i--) {
            add(i); // each below the run's tail: into the heap
        }
        assertEquals(32, index.heapSize());
        assertEquals(8 + 32, index.capacity());
        for (int i = 0; i < 24; i++) {
            index.pollDue(i);
        }
        assertEquals(8 + 32, index.capacity(), "8 of 32: kept");
        index.pollDue(24);
        assertEquals(8 + 16, index.capacity(), "7 of 32: halved");
        for (int i = 25; i < 32; i++) {
            assertTrue(index.pollDue(i) != null, "position " + i);
        }
        assertEquals(16, index.capacity());
        PositionWatch five = add(5);
        PositionWatch four = add(4);
        assertSame(four, index.pollDue(10), "still ordered after shrinking");
        assertSame(five, index.pollDue(10));
    }

    @Test
    void removingTombstonesShrinksTheArraysToo() {
        List<PositionWatch> watches = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            watches.add(add(i));
        }
        for (int i = 0; i < 61; i++) {
            bury(watches.get(i));
        }
        assertEquals(61, index.removeDeadIfHalf());
        assertEquals(16, index.capacity(), "3 live watches: the smallest arrays");
        assertSame(watches.get(61), index.pollDue(61));
    }

    /**
     * Rebuilding the heap after tombstones are removed reads only the heap's live slots: here the
     * slot just past it still holds the position of a removed watch (8), lower than the live ones.
     */
    @Test
    void theHeapRebuiltAfterRemovingTombstonesHoldsOnlyLiveWatches() {
        PositionWatch run = add(100);
        PositionWatch five = add(5); // the heap: [5, 30, 8, 40]
        PositionWatch thirty = add(30);
        PositionWatch eight = add(8);
        PositionWatch forty = add(40);
        assertEquals(4, index.heapSize());
        bury(run);
        bury(five);
        bury(eight);
        assertEquals(3, index.removeDeadIfHalf());
        assertSame(thirty, index.pollDue(Long.MAX_VALUE));
        assertSame(forty, index.pollDue(Long.MAX_VALUE));
        assertTrue(index.isEmpty());
    }
}
