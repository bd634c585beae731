package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The striped add stacks of {@link SystemTimer}: one stripe per thread id, each last-in first-out. */
class AddStacksTest {

    private static final class Node extends TimerTask {
        Node() {
            super(0);
        }

        @Override
        public void run() {
        }
    }

    @Test
    void stripesAreAPowerOfTwoFromTwoToSixtyFour() {
        assertEquals(2, new AddStacks(1).stripes());
        assertEquals(2, new AddStacks(2).stripes());
        assertEquals(4, new AddStacks(3).stripes());
        assertEquals(8, new AddStacks(8).stripes());
        assertEquals(64, new AddStacks(1000).stripes());
        int processors = Runtime.getRuntime().availableProcessors();
        assertTrue(new AddStacks().stripes() >= Math.min(64, 2 * processors));
    }

    @Test
    void aStripeIsLastInFirstOutAndSaysWhenItWasEmpty() {
        AddStacks stacks = new AddStacks(4);
        Node first = new Node();
        Node second = new Node();
        assertTrue(stacks.isEmpty());
        assertTrue(stacks.push(first), "the first push finds its stripe empty");
        assertFalse(stacks.push(second));
        assertFalse(stacks.isEmpty());
        int mine = (int) Thread.currentThread().getId() & (stacks.stripes() - 1);
        assertSame(second, stacks.peek(mine));
        TimerNode taken = stacks.take(mine);
        assertSame(second, taken);
        assertSame(first, TimerNodes.handoffNext(taken));
        assertNull(TimerNodes.handoffNext(first));
        assertTrue(stacks.isEmpty());
        assertNull(stacks.take(mine));
    }

    @Test
    void threadsOfConsecutiveIdsPushOntoDifferentStripesAndNothingIsLost() throws Exception {
        AddStacks stacks = new AddStacks(4);
        int threads = 4;
        int perThread = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> pushers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            pushers.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    stacks.push(new Node());
                }
            }));
        }
        pushers.forEach(Thread::start);
        start.countDown();
        for (Thread pusher : pushers) {
            pusher.join();
        }
        Set<Integer> used = new HashSet<>();
        int count = 0;
        for (int stripe = 0; stripe < stacks.stripes(); stripe++) {
            TimerNode node = stacks.take(stripe);
            if (node != null) {
                used.add(stripe);
            }
            for (; node != null; node = TimerNodes.handoffNext(node)) {
                count++;
            }
        }
        assertEquals(threads * perThread, count, "every push is taken once");
        Set<Integer> expected = new HashSet<>();
        for (Thread pusher : pushers) {
            expected.add((int) pusher.getId() & (stacks.stripes() - 1));
        }
        assertEquals(expected, used, "each thread pushed onto the stripe of its id");
    }
}
