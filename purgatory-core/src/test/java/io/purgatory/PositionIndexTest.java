package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PositionIndex} on its own, against a model: watches come out lowest position first, only
 * when due, tombstones are counted and removed, and positions that arrive in order never touch the
 * heap (that is what makes the common case O(1)).
 */
class PositionIndexTest {

    private static PositionWatch watch() {
        return new PositionWatch(new TestOperation(1_000), null);
    }

    @Test
    void positionsInIncreasingOrderStayInTheRunAndComeOutInOrder() {
        PositionIndex index = new PositionIndex();
        List<PositionWatch> added = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            PositionWatch w = watch();
            index.add(i / 3, w); // equal positions too
            added.add(w);
        }
        assertEquals(0, index.heapSize(), "in-order positions never go to the heap");
        assertFalse(index.hasDue(-1));
        assertNull(index.pollDue(-1));
        for (PositionWatch expected : added) {
            assertSame(expected, index.pollDue(Long.MAX_VALUE));
        }
        assertTrue(index.isEmpty());
    }

    /** Random adds (mostly in order), polls and burials, against a list of live positions. */
    @ParameterizedTest
    @ValueSource(longs = {1, 7, 31, 2024, 65_537})
    void agreesWithAModel(long seed) {
        Random random = new Random(seed);
        PositionIndex index = new PositionIndex();
        Map<PositionWatch, Long> live = new IdentityHashMap<>();
        List<PositionWatch> dead = new ArrayList<>();
        long next = 0;
        for (int step = 0; step < 20_000; step++) {
            int action = random.nextInt(10);
            if (action < 5) {
                long position = random.nextInt(5) == 0 ? next - random.nextInt(100) : (next += random.nextInt(3));
                PositionWatch w = watch();
                index.add(position, w);
                live.put(w, position);
            } else if (action < 8) {
                long due = next - random.nextInt(60);
                long lowestLive = live.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
                long previous = Long.MIN_VALUE;
                for (PositionWatch w; (w = index.pollDue(due)) != null; ) {
                    if (w.op == null) {
                        assertTrue(dead.remove(w), "a tombstone comes out once");
                        continue;
                    }
                    Long position = live.remove(w);
                    assertTrue(position != null && position <= due, "seed " + seed + " step " + step + ": not due");
                    assertTrue(position >= previous, "lowest first");
                    assertTrue(position >= lowestLive, "nothing lower was left behind");
                    previous = position;
                }
                assertTrue(live.values().stream().allMatch(p -> p > due), "every due watch came out");
                removeDeadIfHalf(index, dead);
            } else if (!live.isEmpty()) {
                PositionWatch w = live.keySet().iterator().next();
                live.remove(w);
                w.op = null;
                dead.add(w);
                index.buried();
                removeDeadIfHalf(index, dead);
            }
            assertTrue(index.deadCount() * 2 < index.size() || index.deadCount() == 0,
                    "seed " + seed + " step " + step + ": fewer tombstones than live watches, or none");
            assertEquals(live.size() + dead.size(), index.size(), "seed " + seed + " step " + step);
            assertEquals(dead.size(), index.deadCount());
        }
    }

    /** What the owning list does after a burial or an advance, mirrored in the model. */
    private static void removeDeadIfHalf(PositionIndex index, List<PositionWatch> dead) {
        int removed = index.removeDeadIfHalf();
        if (removed > 0) {
            assertEquals(dead.size(), removed, "all tombstones go at once");
            dead.clear();
        }
    }

    @Test
    void pollsThatTakeTheLiveWatchesLeaveTombstonesForTheOwnerToRemove() {
        PositionIndex index = new PositionIndex();
        PositionWatch first = watch();
        PositionWatch second = watch();
        PositionWatch third = watch();
        index.add(1, first);
        index.add(2, second);
        index.add(3, third);
        third.op = null;
        index.buried();
        assertEquals(0, index.removeDeadIfHalf(), "one tombstone in three: kept");

        assertSame(first, index.pollDue(2));
        assertSame(second, index.pollDue(2));

        assertEquals(1, index.size());
        assertEquals(1, index.removeDeadIfHalf(), "only tombstones left: removed");
        assertTrue(index.isEmpty());
    }
}
