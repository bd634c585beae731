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

/** The handler pool runs smaller requests first, in arrival order within a size class, and its close never waits on a spinning handler. */
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
    void aSmallRequestTakesTheHandlerKeptForItWhileTheOthersRunLargeOnes() throws Exception {
        RequestHandlerPool pool = new RequestHandlerPool(2);
        CountDownLatch large = new CountDownLatch(1);
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(1);
            pool.execute(new RequestHandlerPool.Sized() {
                @Override
                public int bytes() {
                    return 1 << 20;
                }

                @Override
                public void run() {
                    started.countDown();
                    await(large);
                }
            });
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

    private static RequestHandlerPool.Sized sized(String name, int bytes, List<String> ran) {
        return new RequestHandlerPool.Sized() {
            @Override
            public int bytes() {
                return bytes;
            }

            @Override
            public void run() {
                ran.add(name);
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
