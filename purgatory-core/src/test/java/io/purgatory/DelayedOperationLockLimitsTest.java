package io.purgatory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.OperationStates;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The limits of the lock built into {@link DelayedOperation} (see also DelayedOperationLockTest):
 * how often its owner may hold it, who counts as holding it, and a second waiter, which polls
 * because the one parking slot is taken.
 */
class DelayedOperationLockLimitsTest {

    private final TestOperation op = new TestOperation(60_000);

    private static boolean onOtherThread(BooleanSupplier action) {
        return CompletableFuture.supplyAsync(action::getAsBoolean).join();
    }

    @Test
    void theOwnerMayHoldItUpTo65535TimesAndAFurtherTakeThrowsLeavingItHeld() {
        for (int i = 0; i < 65_535; i++) {
            assertTrue(OperationStates.tryLock(op));
        }
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, () -> OperationStates.tryLock(op));
        assertEquals("operation lock held too often by " + Thread.currentThread().getName(), e.getMessage());
        assertTrue(OperationStates.isHeldByCurrentThread(op));
        for (int i = 0; i < 65_534; i++) {
            OperationStates.unlock(op);
        }
        assertTrue(OperationStates.isHeldByCurrentThread(op), "held once more");
        assertFalse(onOtherThread(() -> OperationStates.tryLock(op)));
        OperationStates.unlock(op);
        assertFalse(OperationStates.isHeldByCurrentThread(op));
        assertTrue(onOtherThread(() -> {
            boolean taken = OperationStates.tryLock(op) && OperationStates.isHeldByCurrentThread(op);
            OperationStates.unlock(op);
            return taken;
        }), "free after as many unlocks as takes");
    }

    @Test
    void onlyTheOwnerIsHoldingIt() {
        assertFalse(OperationStates.isHeldByCurrentThread(op));
        OperationStates.lock(op);
        assertTrue(OperationStates.isHeldByCurrentThread(op));
        assertFalse(onOtherThread(() -> OperationStates.isHeldByCurrentThread(op)));
        OperationStates.unlock(op);
    }

    /**
     * Two threads wait while the owner holds the lock: one parks in the waiter slot, the other finds
     * the slot taken and polls. Both get the lock in turn once it is released, each alone.
     */
    @Test
    void aSecondWaiterPollsAndGetsTheLockAfterTheFirst() throws Exception {
        OperationStates.lock(op);
        int[] holders = {0}; // guarded by op's lock
        int[] taken = {0};
        AtomicBoolean overlap = new AtomicBoolean();
        Runnable waiter = () -> {
            OperationStates.lock(op);
            holders[0]++;
            taken[0]++;
            overlap.compareAndSet(false, holders[0] != 1);
            holders[0]--;
            OperationStates.unlock(op);
        };
        Thread first = new Thread(waiter, "lock-waiter-1");
        Thread second = new Thread(waiter, "lock-waiter-2");
        first.start();
        second.start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() ->
                LockSupport.getBlocker(first) == op
                        && LockSupport.getBlocker(second) == op);
        assertEquals(0, taken[0], "neither takes a held lock");
        OperationStates.unlock(op);
        first.join(30_000);
        second.join(30_000);
        assertFalse(first.isAlive() || second.isAlive(), "both got the lock");
        OperationStates.lock(op);
        assertEquals(2, taken[0]);
        OperationStates.unlock(op);
        assertFalse(overlap.get(), "one holder at a time");
    }
}
