package io.purgatory;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.scenario;

import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The keys form of a {@link WatchList}, model-checked: operations are linked into it (as the
 * purgatory's offer does: try, link, try again, under the operation's lock), completed from outside,
 * made ready and checked ({@code tryCompleteWatched}, which compacts a list a quarter dead), and
 * purged ({@code removeTombstones}), from two threads. Checked in every interleaving: no completed
 * operation is tried (an exception in the results), and at quiescence ({@link Scenario#validate})
 * every operation watched and ready has completed (no live watch was lost by a walk or a compaction)
 * and the list holds exactly the watched operations that have not completed, and no entry holds a
 * completed one (it must be unreachable at once: KAFKA-19763).
 *
 * <p>The same scenario runs against a {@link WatchList} whose test seam ({@code copyOnCompact} false)
 * makes it compact its array in place instead of copying it: a walker holding the array then skips
 * an entry shifted under it, and the checker must find that interleaving. The seam is in the real
 * class, so the check cannot drift from the code it vouches for.
 */
@Tag("lincheck")
class WatchListLincheckTest {

    /** What the scenario needs of a watch list. */
    interface Watchers {
        void add(OperationState op);

        /** The operation completed: its entry becomes a tombstone. Under op's lock. */
        void clear(OperationState op);

        void tryCompleteWatched();

        void removeTombstones();

        /** Every entry, tombstones as null; the list is detached after. */
        Object[] detach();
    }

    /** An operation whose condition is a flag; it complains if it is tried once completed. */
    static final class Flagged extends DelayedOperation {
        private final Watchers list;
        volatile boolean ready;
        /** Set under the lock when the operation is linked into the list. */
        boolean watched;

        Flagged(Watchers list) {
            super(60_000);
            this.list = list;
        }

        @Override
        public boolean tryComplete() {
            if (isCompleted()) {
                throw new AssertionError("a completed operation was tried");
            }
            return ready && forceComplete();
        }

        @Override
        public void onComplete() {
            if (watched) {
                list.clear(this); // what the purgatory does on completion, under the lock
            }
        }

        @Override
        public void onExpiration() {
        }
    }

    @Param(name = "op", gen = IntGen.class, conf = "0:2")
    public abstract static class Scenario {
        private final Watchers list;
        private final Flagged[] ops;

        Scenario(Watchers list) {
            this.list = list;
            this.ops = new Flagged[] {new Flagged(list), new Flagged(list), new Flagged(list)};
        }

        /** The purgatory's offer: try; if not complete, link, try again; all under the lock. */
        @Operation
        public void watch(@Param(name = "op") int i) {
            Flagged op = ops[i];
            OperationStates.lock(op);
            try {
                if (op.watched || op.isCompleted() || op.tryComplete()) {
                    return;
                }
                list.add(op);
                op.watched = true;
                op.tryComplete();
            } finally {
                OperationStates.unlock(op);
            }
            Operations.retryIfPending(op);
        }

        /** The condition of op now holds: the caller announces it to the list. */
        @Operation
        public void readyAndCheck(@Param(name = "op") int i) {
            ops[i].ready = true;
            list.tryCompleteWatched();
        }

        /** Completion on another path (a cancellation, an expiry). */
        @Operation
        public void complete(@Param(name = "op") int i) {
            ops[i].forceComplete();
        }

        @Operation
        public void purge() {
            list.removeTombstones();
        }

        @Validate
        public void validate() {
            Map<OperationState, Integer> linked = new IdentityHashMap<>();
            for (Object entry : list.detach()) {
                OperationState op = WatchList.operationOf(entry);
                if (op != null && Operations.isDone(op)) {
                    throw new AssertionError("a completed operation is still linked: " + op);
                }
                if (op != null) {
                    linked.merge(op, 1, Integer::sum);
                }
            }
            for (int i = 0; i < ops.length; i++) {
                Flagged op = ops[i];
                if (op.watched && op.ready && !op.isCompleted()) {
                    throw new AssertionError("op " + i + " is watched and ready, but was never completed");
                }
                int expected = op.watched && !op.isCompleted() ? 1 : 0;
                if (linked.getOrDefault(op, 0) != expected) {
                    throw new AssertionError("op " + i + " is linked " + linked.getOrDefault(op, 0) + " times, expected " + expected);
                }
            }
        }
    }

    /** The scenario over the real {@link WatchList}. */
    public static class Real extends Scenario {
        public Real() {
            super(of(new WatchList(new WatchCounts())));
        }

        private static Watchers of(WatchList list) {
            return new Watchers() {
                @Override
                public void add(OperationState op) {
                    list.tryAdd(op, 0);
                }

                @Override
                public void clear(OperationState op) {
                    list.clear(op);
                }

                @Override
                public void tryCompleteWatched() {
                    list.tryCompleteWatched();
                }

                @Override
                public void removeTombstones() {
                    list.removeTombstones();
                }

                @Override
                public Object[] detach() {
                    return list.detach();
                }
            };
        }
    }

    /** The scenario over the real {@link WatchList} with its seam set to compact in place. */
    public static class Broken extends Scenario {
        public Broken() {
            super(Real.of(new WatchList(new WatchCounts(), false)));
        }
    }

    /**
     * Random scenarios, and the one that a compaction under a walker needs: a tombstone before a
     * live operation that one thread makes ready and checks while the other purges.
     */
    private static ModelCheckingOptions options2x3(Class<? extends Scenario> test) {
        return options(15, 500, 2, 3).addCustomScenario(scenario(test)
                .first("watch", 0).first("watch", 1).first("complete", 0)
                .thread(0, "readyAndCheck", 1)
                .thread(1, "purge")
                .build());
    }

    @Test
    void noLiveWatchIsLostAndNoCompletedOperationIsTried() {
        options2x3(Real.class).check(Real.class);
    }

    @Test
    void aListThatCompactsInPlaceUnderAWalkerIsCaught() {
        assertCaught(options2x3(Broken.class), Broken.class);
    }
}
