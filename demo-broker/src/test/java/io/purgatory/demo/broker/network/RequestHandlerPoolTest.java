package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.Waits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The handler pool runs the requests of cheaper clients first, then smaller requests, in arrival order
 * within a class; it keeps a handler for small requests of light clients; its close never waits on a
 * spinning handler.
 */
class RequestHandlerPoolTest {
    @Test
    void smallerRequestsGoFirstThenInArrivalOrder() throws Exception {
        RequestHandlerPool pool = new RequestHandlerPool(1);
        try {
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            pool.execute(() -> {
                started.countDown();
                await(busy);
            });
            started.await();
            List<String> ran = new CopyOnWriteArrayList<>();
            pool.execute(sized("100 KiB", 100 << 10, ran));
            pool.execute(sized("100 B", 100, ran));
            pool.execute(sized("10 KiB", 10 << 10, ran));
            pool.execute(sized("50 B", 50, ran));
            pool.execute(sized("12 KiB", 12 << 10, ran)); // the class of 10 KiB: after it
            busy.countDown();

            Waits.soon().until(() -> ran.size() == 5);
            assertEquals(List.of("100 B", "50 B", "10 KiB", "12 KiB", "100 KiB"), ran);
        } finally {
            pool.close();
        }
    }

    @Test
    void cheaperClientsGoFirstWhateverTheSizeOfTheirRequests() throws Exception {
        RequestHandlerPool pool = new RequestHandlerPool(1);
        try {
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            pool.execute(() -> {
                started.countDown();
                await(busy);
            });
            started.await();
            List<String> ran = new CopyOnWriteArrayList<>();
            pool.execute(costing("22 B from a client using a tenth of a handler", 8, 22, ran));
            pool.execute(costing("22 B from a client using half a handler", 10, 22, ran));
            pool.execute(costing("1 MiB from an idle client", 0, 1 << 20, ran));
            pool.execute(costing("100 B from a light client", 5, 100, ran));
            pool.execute(costing("50 B from a light client", 5, 50, ran));
            busy.countDown();

            Waits.soon().until(() -> ran.size() == 5);
            assertEquals(List.of("1 MiB from an idle client", "100 B from a light client", "50 B from a light client",
                    "22 B from a client using a tenth of a handler", "22 B from a client using half a handler"), ran);
        } finally {
            pool.close();
        }
    }

    @Test
    void aSmallRequestOfAnExpensiveClientDoesNotTakeTheHandlerKeptForLightOnes() throws Exception {
        RequestHandlerPool pool = new RequestHandlerPool(2);
        CountDownLatch shared = new CountDownLatch(1);
        CountDownLatch kept = new CountDownLatch(1);
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(2);
            pool.execute(prioritized(1 << 20, 0, () -> { // the shared handler
                started.countDown();
                await(shared);
            }));
            pool.execute(prioritized(100, 0, () -> { // the handler kept for small requests of light clients
                started.countDown();
                await(kept);
            }));
            started.await();
            pool.execute(costing("22 B, expensive client", RequestHandlerPool.LIGHT_COST_CLASS + 1, 22, ran));
            kept.countDown(); // the kept handler is free now, and the shared one still busy
            pool.execute(costing("small, light client", RequestHandlerPool.LIGHT_COST_CLASS, 100, ran));
            Waits.soon().until(() -> ran.contains("small, light client"));
            assertEquals(List.of("small, light client"), ran, "the expensive client's request waits for the shared handler");
        } finally {
            shared.countDown();
            pool.close();
        }
    }

    @Test
    void aSmallRequestTakesTheHandlerKeptForItWhileTheOthersRunLargeOnes() throws Exception {
        RequestHandlerPool pool = new RequestHandlerPool(2);
        CountDownLatch large = new CountDownLatch(1);
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(1);
            pool.execute(prioritized(1 << 20, 0, () -> {
                started.countDown();
                await(large);
            }));
            started.await();
            pool.execute(sized("another large", 1 << 20, ran)); // waits: the shared handler is busy
            pool.execute(sized("small", 100, ran));

            Waits.soon().until(() -> ran.contains("small"));
            assertEquals(List.of("small"), ran, "the small request did not wait for the large ones");
        } finally {
            large.countDown();
            pool.close();
        }
    }

    @Test
    void closeReturnsWhileAHandlerSpinsAndRefusesNewRequests() {
        RequestHandlerPool pool = new RequestHandlerPool(2);
        AtomicBoolean spinning = new AtomicBoolean(true);
        pool.execute(() -> {
            while (spinning.get()) { // ignores interrupts, like a handler that never yields
                Thread.onSpinWait();
            }
        });
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(30), pool::close, "close waits at most a second for busy handlers");
            assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
        } finally {
            spinning.set(false);
        }
    }

    private static RequestHandlerPool.Prioritized sized(String name, int bytes, List<String> ran) {
        return costing(name, 0, bytes, ran);
    }

    private static RequestHandlerPool.Prioritized costing(String name, int costClass, int bytes, List<String> ran) {
        return prioritized(bytes, costClass, () -> ran.add(name));
    }

    private static RequestHandlerPool.Prioritized prioritized(int bytes, int costClass, Runnable task) {
        return new RequestHandlerPool.Prioritized() {
            @Override
            public int bytes() {
                return bytes;
            }

            @Override
            public int costClass() {
                return costClass;
            }

            @Override
            public void run() {
                task.run();
            }
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
