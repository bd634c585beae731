package io.purgatory.timer;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The lock-free stacks through which threads hand added tasks to a {@link SystemTimer}'s reaper:
 * one per stripe, each on a cache line of its own, a thread pushing onto the stripe of its id. Threads
 * that add at once then push onto different heads (one head for all made two adding threads spend
 * two thirds of their time failing compare-and-sets on it), while the reaper takes every stripe
 * with one {@code getAndSet} each. Tasks are linked through their {@code handoffNext} ({@link TimerNodes#handoffNext(TimerNode)}).
 *
 * <p>Order: a stripe is last-in first-out, so the reaper reverses each stripe it takes; tasks added by
 * one thread come out in the order they were added, as before; tasks of two threads taken in the same
 * round come out stripe by stripe.
 *
 * <p>Thread-safe: every head is an element of an {@link AtomicReferenceArray}, changed by
 * compare-and-set (a push) or {@code getAndSet} (a take); a task's {@code handoffNext} is written by
 * the pushing thread before the compare-and-set that publishes it.
 */
final class AddStacks {

    /** Array slots between two heads: 16 references fill 64 bytes even with compressed references. */
    private static final int SPACING = 16;

    private final AtomicReferenceArray<@Nullable TimerNode> heads;
    private final int mask;

    /** With twice as many stripes as processors, rounded up to a power of two, from 2 to 64. */
    AddStacks() {
        this(2 * Runtime.getRuntime().availableProcessors());
    }

    /** With {@code stripes} rounded up to a power of two, from 2 to 64. */
    AddStacks(int stripes) {
        int n = Math.min(64, Math.max(2, Integer.highestOneBit(Math.max(1, stripes - 1)) << 1));
        this.mask = n - 1;
        this.heads = new AtomicReferenceArray<>((n + 1) * SPACING); // slot 0's line is the array header's: unused
    }

    /** How many stripes there are. */
    int stripes() {
        return mask + 1;
    }

    /**
     * Pushes a task onto the calling thread's stripe.
     *
     * @return true if that stripe was empty
     */
    boolean push(TimerNode task) {
        int slot = slot((int) Thread.currentThread().getId() & mask);
        TimerNode head;
        do {
            head = heads.get(slot);
            TimerNodes.handoffNext(task, head);
        } while (!heads.compareAndSet(slot, head, task));
        return head == null;
    }

    /** Takes stripe {@code stripe}'s whole stack, last pushed first, or null if it is empty. */
    @Nullable TimerNode take(int stripe) {
        return heads.getAndSet(slot(stripe), null);
    }

    /** The top of stripe {@code stripe}, not taken (for a check that walks the stack), or null. */
    @Nullable TimerNode peek(int stripe) {
        return heads.get(slot(stripe));
    }

    /** Whether every stripe is empty. */
    boolean isEmpty() {
        for (int stripe = 0; stripe <= mask; stripe++) {
            if (heads.get(slot(stripe)) != null) {
                return false;
            }
        }
        return true;
    }

    private static int slot(int stripe) {
        return (stripe + 1) * SPACING;
    }
}
