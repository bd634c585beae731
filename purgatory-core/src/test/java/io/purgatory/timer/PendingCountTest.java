package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingCountTest {

    @Test
    void theSumCountsWhatEveryThreadCountedInAndOut() throws InterruptedException {
        PendingCount count = new PendingCount();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 1_000; i++) {
                    count.increment();
                }
                for (int i = 0; i < 300; i++) {
                    count.decrement();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(4 * 700, count.sum());
    }

    @Test
    void aTaskCountedInOnOneThreadAndOutOnAnotherLeavesNothing() throws InterruptedException {
        PendingCount count = new PendingCount();
        count.increment(); // added here
        Thread canceller = new Thread(count::decrement); // cancelled there
        canceller.start();
        canceller.join();
        assertEquals(0, count.sum());
    }

    @Test
    void whatEndedThreadsCountedStaysCountedWhenTheirCellsAreFolded() throws InterruptedException {
        PendingCount count = new PendingCount();
        for (int t = 0; t < 3; t++) {
            Thread adder = new Thread(() -> {
                count.increment();
                count.increment();
            });
            adder.start();
            adder.join(); // ended: the next thread's first change folds its cell
        }
        count.decrement(); // this thread registers, folding the ended threads' cells
        assertEquals(5, count.sum());
    }
}
