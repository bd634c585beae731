package io.purgatory;

import static io.purgatory.timer.ModelChecking.assertCaught;
import static io.purgatory.timer.ModelChecking.options;
import static io.purgatory.timer.ModelChecking.scenario;

import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The position watches of a {@link WatchList} (its {@link PositionIndex}), model-checked for
 * linearizability: operations watch at their positions (linked in any order, so both the index's
 * ordered run and its heap are used), advances take what is due, and completions turn watches into
 * tombstones (which the index compacts once they are half of it), from two threads. Each advance
 * returns the operations it took, in order; Lincheck checks that every concurrent history matches
 * some sequential one: every watch at or below an advance's position is taken by exactly one
 * advance, lowest position first, and no tombstone is ever handed out.
 *
 * <p>The same scenario runs against {@link UnguardedTakeDueList}, a copy whose {@code takeDue} runs
 * without the list's monitor; the checker must find the history that copy gets wrong.
 */
@Tag("lincheck")
class PositionIndexLincheckTest {

    /** What the scenario needs of a list's position watches. */
    interface Positions {
        void add(PositionWatch watch, long position);

        OperationState[] takeDue(long position);

        /** The watch's operation completed; the caller holds the operation's lock. */
        void release(PositionWatch watch);
    }

    /** An operation that is never tried: the index only holds it. */
    static final class Parked extends DelayedOperation {
        private final int id;

        Parked(int id) {
            super(60_000);
            this.id = id;
        }

        @Override
        public boolean tryComplete() {
            return false;
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onExpiration() {
        }
    }

    /** The position each operation waits for: linked as 0, 1, 2 they arrive out of order. */
    private static final long[] POSITIONS = {2, 1, 3};

    @Param(name = "op", gen = IntGen.class, conf = "0:2")
    @Param(name = "position", gen = IntGen.class, conf = "1:3")
    public abstract static class Scenario {
        private final Positions list;
        private final Parked[] ops = {new Parked(0), new Parked(1), new Parked(2)};
        private final PositionWatch[] watches = new PositionWatch[3];

        Scenario(Positions list) {
            this.list = list;
        }

        /** Operation i watches at its position (once; later calls do nothing). */
        @Operation(nonParallelGroup = "watch")
        public void watch(@Param(name = "op") int i) {
            if (watches[i] == null) {
                watches[i] = new PositionWatch(ops[i], null);
                list.add(watches[i], POSITIONS[i]);
            }
        }

        /** @return the ids of the operations taken, in the order taken */
        @Operation
        public List<Integer> advance(@Param(name = "position") int position) {
            List<Integer> taken = new ArrayList<>();
            for (OperationState op : list.takeDue(position)) {
                taken.add(((Parked) op).id);
            }
            return taken;
        }

        /** Operation i completes: its watch, if linked, becomes a tombstone. */
        @Operation(nonParallelGroup = "watch")
        public void complete(@Param(name = "op") int i) {
            PositionWatch watch = watches[i];
            if (watch != null && watch.op != null) {
                OperationStates.lock(ops[i]);
                try {
                    list.release(watch);
                } finally {
                    OperationStates.unlock(ops[i]);
                }
            }
        }
    }

    /** The scenario over the real {@link WatchList}. */
    public static class Real extends Scenario {
        public Real() {
            super(of(new WatchList(new WatchCounts())));
        }

        private static Positions of(WatchList list) {
            return new Positions() {
                @Override
                public void add(PositionWatch watch, long position) {
                    list.tryAdd(watch, position);
                }

                @Override
                public OperationState[] takeDue(long position) {
                    return list.takeDue(position);
                }

                @Override
                public void release(PositionWatch watch) {
                    watch.release();
                }
            };
        }
    }

    /** The scenario over the broken copy. */
    public static class Broken extends Scenario {
        public Broken() {
            super(new UnguardedTakeDueList());
        }
    }

    private static ModelCheckingOptions options2x3(Class<? extends Scenario> test) {
        return options(10, 500, 2, 3)
                // an advance taking two watches while the first of them completes (and the index compacts)
                .addCustomScenario(scenario(test).first("watch", 0).first("watch", 1).first("watch", 2)
                        .thread(0, "advance", 3).thread(1, "complete", 1).build());
    }

    @Test
    void everyPassedPositionIsTakenOnceLowestFirst() {
        options2x3(Real.class).check(Real.class);
    }

    @Test
    void anIndexTakenWithoutItsMonitorIsCaught() {
        assertCaught(options2x3(Broken.class), Broken.class);
    }
}
