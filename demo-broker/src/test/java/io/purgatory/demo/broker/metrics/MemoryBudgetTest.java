package io.purgatory.demo.broker.metrics;

import io.purgatory.demo.broker.metrics.MemoryBudget.Kind;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The budget's accounting: shares, refusals that charge nothing, forced in-flight charges, releases. */
class MemoryBudgetTest {
    private static final long LIMIT = 16 * 1024;
    private final MemoryBudget budget = new MemoryBudget(LIMIT);

    @Test
    void eachKindGetsItsShareAndTheRestIsKeptForRequestsInFlight() {
        assertEquals(LIMIT / 2, budget.shareBytes(Kind.LOGS));
        assertEquals(LIMIT / 8, budget.shareBytes(Kind.PARKED));
        assertEquals(LIMIT / 8, budget.shareBytes(Kind.OFFSETS));
        assertEquals(LIMIT / 16, budget.shareBytes(Kind.GROUPS));
        assertEquals(LIMIT * 3 / 16, budget.reserveBytes());
    }

    @Test
    void aChargePastItsKindsShareIsRefusedAndChargesNothing() {
        assertTrue(budget.tryCharge(Kind.OFFSETS, LIMIT / 8 - 10));
        assertFalse(budget.tryCharge(Kind.OFFSETS, 11));
        assertEquals(LIMIT / 8 - 10, budget.used(Kind.OFFSETS));
        assertEquals(LIMIT / 8 - 10, budget.used());
        assertTrue(budget.tryCharge(Kind.OFFSETS, 10), "exactly the share fits");
        assertTrue(budget.tryCharge(Kind.LOGS, LIMIT / 2), "a full kind does not refuse another");
        assertFalse(budget.fits(Kind.OFFSETS, 1));
        assertTrue(budget.fits(Kind.PARKED, LIMIT / 8));
    }

    @Test
    void releasesGiveTheRoomBackAndTheTotalIsTheSumOfTheKinds() {
        budget.tryCharge(Kind.LOGS, 1000);
        budget.tryCharge(Kind.PARKED, 300);
        budget.tryCharge(Kind.GROUPS, 20);
        budget.charge(Kind.IN_FLIGHT, 5);
        assertEquals(1325, budget.used());

        budget.release(Kind.LOGS, 1000);
        budget.release(Kind.PARKED, 300);

        assertEquals(25, budget.used());
        assertEquals(0, budget.used(Kind.LOGS));
        assertEquals(20, budget.used(Kind.GROUPS));
        assertEquals(5, budget.used(Kind.IN_FLIGHT));
    }

    @Test
    void requestsInFlightAreAlwaysChargedAndFillTheBudget() {
        budget.tryCharge(Kind.LOGS, LIMIT / 2);
        assertFalse(budget.inFlightFull());

        budget.charge(Kind.IN_FLIGHT, LIMIT / 2);

        assertTrue(budget.inFlightFull(), "the whole budget is used: connections read no more");
        budget.charge(Kind.IN_FLIGHT, 100);
        assertEquals(LIMIT + 100, budget.used(), "a request already read is counted whatever the total");
        budget.release(Kind.IN_FLIGHT, 101);
        assertFalse(budget.inFlightFull());
    }

    @Test
    void refusalsAreCountedByKind() {
        budget.refused(Kind.OFFSETS, "a commit");
        budget.refused(Kind.OFFSETS, "another commit");
        budget.refused(Kind.GROUPS, "a group");

        assertEquals(2, budget.refusals(Kind.OFFSETS));
        assertEquals(1, budget.refusals(Kind.GROUPS));
        assertEquals(0, budget.refusals(Kind.LOGS));
    }

    @Test
    void minusOneMeansHalfOfTheMaximumHeap() {
        assertEquals(Runtime.getRuntime().maxMemory() / 2, MemoryBudget.of(-1).limitBytes());
        assertEquals(1 << 20, MemoryBudget.of(1 << 20).limitBytes());
        assertThrows(IllegalArgumentException.class, () -> new MemoryBudget(0));
    }

    @Test
    void nothingAndNegativeAmountsChangeNothing() {
        assertTrue(budget.tryCharge(Kind.LOGS, 0));
        budget.charge(Kind.IN_FLIGHT, -5);
        budget.release(Kind.LOGS, -5);
        assertEquals(0, budget.used());
    }
}
