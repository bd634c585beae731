package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link WatchList} on its own, as its purgatory uses it: entries linked and turned into tombstones,
 * walks that complete what is ready and compact a list a quarter dead, position watches taken by
 * advances lowest first, detaching; and the counts the purgatory reports ({@code watched}) and
 * purges by.
 */
class WatchListTest {

    private final WatchCounts counts = new WatchCounts();
    private final WatchList list = new WatchList(counts);

    /** An operation linked directly (this list is its first key) whose completion clears its entry, as the purgatory's does. */
    private TestOperation direct() {
        TestOperation op = new TestOperation(1_000);
        OperationStates.lock(op);
        try {
            assertTrue(list.tryAdd(op, 0));
            counts.linked.increment(); // the caller counts what it linked, as the purgatory does
        } finally {
            OperationStates.unlock(op);
        }
        op.duringComplete = () -> list.clear(op);
        return op;
    }

    /** An operation watching this list at {@code position}; completing it releases the watch, as the purgatory does. */
    private PositionWatch atPosition(long position) {
        TestOperation op = new TestOperation(1_000);
        PositionWatch watch = new PositionWatch(op, null);
        assertTrue(list.tryAdd(watch, position));
        counts.linked.increment(); // the caller counts what it linked, as the purgatory does
        op.duringComplete = watch::release;
        return watch;
    }

    /** Releases a watch under its operation's lock, as the purgatory does; returns the tombstones it left among the entries. */
    private int released(PositionWatch watch) {
        OperationState op = watch.op;
        OperationStates.lock(op);
        try {
            return list.release(watch);
        } finally {
            OperationStates.unlock(op);
        }
    }

    private static List<OperationState> operations(Object[] entries) {
        List<OperationState> ops = new ArrayList<>();
        for (Object entry : entries) {
            ops.add(WatchList.operationOf(entry));
        }
        return ops;
    }

    @Test
    void aTombstoneIsRemovedAndTheSlotsOfTheEntriesAfterItFollow() {
        TestOperation first = direct();
        TestOperation second = direct();
        TestOperation third = direct();
        assertEquals(3, counts.linked.sum());

        assertTrue(second.forceComplete());
        assertEquals(1, list.removeTombstones());
        assertEquals(2, counts.linked.sum(), "the purgatory's watched() drops the removed tombstone");

        assertTrue(third.forceComplete()); // its slot moved from 2 to 1: clearing must find it there
        assertEquals(1, list.removeTombstones());
        assertEquals(List.of(first), operations(list.detach()));
        assertEquals(0, list.removeTombstones(), "nothing left to remove");
    }

    @Test
    void aCompletedEntryIsATombstoneAtOnceToAnyWalk() {
        TestOperation first = direct();
        TestOperation second = direct();
        assertTrue(first.forceComplete());
        second.setReady(true);
        assertEquals(1, list.tryCompleteWatched(), "only the live operation is tried");
        assertEquals(0, first.tries.get());
        assertEquals(1, second.tries.get());
    }

    @Test
    void aWalkCompactsTheListWhenAQuarterIsDeadAndNotBefore() {
        TestOperation[] five = {direct(), direct(), direct(), direct(), direct()};
        five[0].setReady(true);
        assertEquals(1, list.tryCompleteWatched());
        assertEquals(5, list.detach().length, "one dead in five is under a quarter: kept");

        WatchList four = new WatchList(counts);
        TestOperation[] ops = new TestOperation[4];
        for (int i = 0; i < ops.length; i++) {
            TestOperation op = new TestOperation(1_000);
            OperationStates.lock(op);
            try {
                four.tryAdd(op, 0);
            } finally {
                OperationStates.unlock(op);
            }
            op.duringComplete = () -> four.clear(op);
            ops[i] = op;
        }
        ops[2].setReady(true);
        assertEquals(1, four.tryCompleteWatched());
        assertEquals(List.of(ops[0], ops[1], ops[3]), operations(four.detach()), "one in four: compacted, in order");
    }

    /**
     * A purge that compacts the list while a walk is under way (here: from the walk's own
     * {@code tryComplete}, so that the interleaving is fixed) must not make the walk skip an entry:
     * the list compacts into a copy. The model check's seam, compacting in place, does skip one.
     */
    @Test
    void aCompactionDuringAWalkMakesItSkipNoEntryUnlessTheSeamCompactsInPlace() {
        assertEquals(List.of(1, 1), triesWhenPurgedDuringAWalk(new WatchList(counts)));
        assertEquals(List.of(1, 0), triesWhenPurgedDuringAWalk(new WatchList(counts, false)),
                "in place, the entry after the purging one moved under the walk: it was skipped");
    }

    /** Links a tombstone and two operations, the first of which purges the list when tried; returns the two's tries. */
    private static List<Integer> triesWhenPurgedDuringAWalk(WatchList target) {
        TestOperation dead = new TestOperation(1_000);
        TestOperation purging = new TestOperation(1_000);
        TestOperation next = new TestOperation(1_000);
        for (TestOperation op : new TestOperation[] {dead, purging, next}) {
            OperationStates.lock(op);
            try {
                target.tryAdd(op, 0);
            } finally {
                OperationStates.unlock(op);
            }
        }
        OperationStates.lock(dead);
        try {
            target.clear(dead);
        } finally {
            OperationStates.unlock(dead);
        }
        purging.duringTry = () -> target.removeTombstones();
        target.tryCompleteWatched();
        return List.of(purging.tries.get(), next.tries.get());
    }

    @Test
    void aWalkTriesTheOperationsOfTheIndexToo() {
        PositionWatch watch = atPosition(10);
        TestOperation op = (TestOperation) watch.op;
        op.setReady(true);
        assertEquals(1, list.tryCompleteWatched());
        assertTrue(op.isCompleted());
        assertTrue(list.isEmpty(), "its watch was buried and removed from the index");
    }

    @Test
    void manyEntriesAreKeptInTheOrderLinked() {
        List<OperationState> linked = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            linked.add(direct());
        }
        assertEquals(linked, operations(list.detach()));
    }

    @Test
    void anAdvanceTakesTheDueWatchesLowestFirstIntoTheEntries() {
        List<PositionWatch> watches = new ArrayList<>();
        for (long position : new long[] {5, 3, 9, 1, 7}) {
            watches.add(atPosition(position));
        }
        assertEquals(0, list.takeDue(0).length, "none due");
        OperationState[] due = list.takeDue(5);
        assertArrayEquals(new OperationState[] {watches.get(3).op, watches.get(1).op, watches.get(0).op}, due,
                "positions 1, 3, 5, and no room to spare");
        assertEquals(5, counts.linked.sum(), "taken watches stay linked, as keys-only entries");
        assertFalse(watches.get(0).indexed);
        assertTrue(watches.get(2).indexed);

        // a watch taken into the entries is a keys-only watch: a walk tries it, its release leaves a tombstone there
        TestOperation taken = (TestOperation) watches.get(0).op;
        taken.setReady(true);
        assertEquals(1, list.tryCompleteWatched());
        assertEquals(4, counts.linked.sum(), "its tombstone was one in three entries: the walk removed it");
        assertFalse(operations(list.detach()).contains(taken));
    }

    @Test
    void anAdvanceTakesMoreThanEightDueWatchesInOrder() {
        List<OperationState> expected = new ArrayList<>();
        for (int position = 0; position < 20; position++) {
            expected.add(atPosition(position).op);
        }
        assertEquals(expected, List.of(list.takeDue(100)));
        assertEquals(0, list.takeDue(100).length);
    }

    @Test
    void releasingAnIndexedWatchBuriesItAndTheIndexDropsItsTombstonesAtHalf() {
        PositionWatch one = atPosition(1);
        PositionWatch two = atPosition(2);
        PositionWatch three = atPosition(3);
        PositionWatch four = atPosition(4);
        assertTrue(Operations.complete(one.op, Completion.COMPLETED, null));
        assertEquals(4, counts.linked.sum(), "one tombstone in four stays in the index");
        assertEquals(0, released(two), "an indexed watch leaves no tombstone among the entries");
        assertEquals(2, counts.linked.sum(), "two in four: both removed");
        assertNull(two.op);

        OperationState[] due = list.takeDue(3);
        assertArrayEquals(new OperationState[] {three.op}, due);
        assertEquals(1, released(three), "a watch among the entries leaves a tombstone there");
        assertSame(four.op, list.takeDue(4)[0]);
    }

    @Test
    void anAdvanceDropsTheTombstonesItPassesFromTheCounts() {
        PositionWatch one = atPosition(1);
        atPosition(2);
        atPosition(3);
        PositionWatch four = atPosition(4);
        assertTrue(Operations.complete(one.op, Completion.COMPLETED, null)); // one tombstone in four: kept
        assertEquals(4, counts.linked.sum());
        assertEquals(2, list.takeDue(3).length);
        assertEquals(3, counts.linked.sum(), "the tombstone the advance passed is no longer linked");
        assertTrue(Operations.complete(four.op, Completion.COMPLETED, null)); // the index: only a tombstone now
        assertEquals(2, counts.linked.sum(), "removed at once");
    }

    @Test
    void aDetachedListRefusesWatchesAndHandsOutWhatItHeld() {
        TestOperation op = direct();
        PositionWatch live = atPosition(5);
        PositionWatch dead = atPosition(6);
        PositionWatch alsoLive = atPosition(7);
        PositionWatch lower = atPosition(2); // in the heap
        assertTrue(Operations.complete(dead.op, Completion.COMPLETED, null));
        assertEquals(5, counts.linked.sum());

        Object[] all = list.detach();
        assertEquals(List.of(op, live.op, alsoLive.op, lower.op), operations(all).subList(0, 4));
        assertEquals(4, all.length, "the index's tombstone is not handed out");
        assertEquals(4, counts.linked.sum(), "and it is no longer linked; the caller unlinks the rest");
        assertFalse(live.indexed);
        assertTrue(list.isEmpty());
        assertFalse(list.tryAdd(new TestOperation(1), 0));
        assertFalse(list.tryAdd(new PositionWatch(new TestOperation(1), null), 1));
    }

    @Test
    void onlyAnEmptyListDetachesWhenEmpty() {
        TestOperation op = direct();
        assertFalse(list.detachIfEmpty());
        assertTrue(op.forceComplete());
        list.removeTombstones();
        assertTrue(list.isEmpty());
        assertTrue(list.detachIfEmpty());
        assertFalse(list.tryAdd(new TestOperation(1), 0), "detached: the caller makes a fresh list");
    }

    @Test
    void aListIsEmptyOnlyWithNoEntryAndNoIndexedWatch() {
        assertTrue(list.isEmpty());
        PositionWatch watch = atPosition(1);
        assertFalse(list.isEmpty());
        assertEquals(1, list.takeDue(1).length);
        assertFalse(list.isEmpty(), "the watch moved to the entries");
        assertTrue(Operations.complete(watch.op, Completion.COMPLETED, null));
        assertEquals(1, list.removeTombstones());
        assertTrue(list.isEmpty());
    }
}
