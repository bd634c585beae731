package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real-time timer. Outcomes are awaited with generous limits (CI is a loaded 2-core machine);
 * the only timing assertion is the contract's lower bound: a task never runs before its delay.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SystemTimerTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final long HOUR_MS = TimeUnit.HOURS.toMillis(1);
    private static final AtomicInteger TIMER_IDS = new AtomicInteger();

    private final List<SystemTimer> timers = new ArrayList<>();
    private String name;

    @AfterEach
    void closeTimers() {
        timers.forEach(SystemTimer::close);
    }

    // ---------------------------------------------------------------------------------------------
    // Every task runs once, never early

    static Stream<Arguments> wheelsAndDelays() {
        return Stream.of(
                // Kafka's defaults: level intervals 20, 400, 8000 ms
                Arguments.of(1, 20, new long[] {0, 1, 2, 3, 19, 20, 21, 39, 40, 41, 399, 400, 401, 419, 420, 421, 2500}),
                // a power of two: bucket lookup by mask
                Arguments.of(1, 64, new long[] {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000}),
                // more than 64 buckets: two words of occupancy bits
                Arguments.of(1, 100, new long[] {0, 1, 63, 64, 65, 99, 100, 101, 199, 200, 201}),
                // the smallest wheel: eleven levels for a second
                Arguments.of(1, 2, LongStream.rangeClosed(0, 10)
                        .flatMap(k -> LongStream.of((1L << k) - 1, 1L << k, (1L << k) + 1)).toArray()),
                Arguments.of(1, 3, new long[] {0, 1, 2, 3, 4, 8, 9, 10, 26, 27, 28, 80, 81, 82, 728, 729, 730}),
                // a coarse tick: due ticks are rounded up, never down (level intervals 100, 2000 ms)
                Arguments.of(5, 20, new long[] {0, 1, 4, 5, 6, 9, 10, 11, 99, 100, 101, 105, 1999, 2000, 2001, 2005}));
    }

    @ParameterizedTest(name = "tick {0} ms, wheelSize {1}")
    @MethodSource("wheelsAndDelays")
    void everyTaskRunsExactlyOnceAndNeverBeforeItsDelay(long tickMs, int wheelSize, long[] delays) {
        SystemTimer timer = start(tickMs, wheelSize);
        List<Probe> probes = new ArrayList<>();
        for (int copy = 0; copy < 2; copy++) {
            for (long delay : delays) {
                probes.add(new Probe("delay " + delay, delay));
            }
        }
        Collections.shuffle(probes, new Random(wheelSize));

        probes.forEach(p -> p.addTo(timer));

        awaiting().until(() -> probes.stream().allMatch(Probe::hasRun));
        for (Probe p : probes) {
            assertEquals(1, p.runs.get(), () -> p + " runs");
            assertNotEarly(p);
            assertEquals(name + "-executor", p.ranOn.getName());
        }
        assertEquals(0, timer.size());
    }

    @Test
    void defaultConstructorRunsTasksOnKafkasWheel() {
        name = uniqueName();
        SystemTimer timer = track(new SystemTimer(name));
        Probe probe = new Probe("p", 25);

        probe.addTo(timer);

        awaiting().until(probe::hasRun);
        assertNotEarly(probe);
    }

    @Test
    void delaysOfHoursAndDaysAreAcceptedCountedAndCancellable() {
        SystemTimer timer = start(1, 20);
        List<Probe> probes = Stream.of(HOUR_MS, TimeUnit.DAYS.toMillis(1), TimeUnit.DAYS.toMillis(365),
                        Long.MAX_VALUE / 2, Long.MAX_VALUE)
                .map(delay -> new Probe("delay " + delay, delay)).toList();

        probes.forEach(p -> p.addTo(timer));
        assertEquals(probes.size(), timer.size());
        awaitReaper(Thread.State.TIMED_WAITING); // took them all, and sleeps until the first

        for (Probe p : probes) {
            assertTrue(p.cancel(), () -> p + " cancel");
        }
        assertEquals(0, timer.size());
        awaitReaper(Thread.State.WAITING); // nothing left to wake up for
        assertTrue(probes.stream().noneMatch(Probe::hasRun));
    }

    // ---------------------------------------------------------------------------------------------
    // Order

    @Test
    void tasksWithDistinctDeadlinesRunInDeadlineOrder() {
        SystemTimer timer = start(1, 20);
        List<Probe> probes = new ArrayList<>();
        Queue<Probe> runOrder = new ConcurrentLinkedQueue<>();
        for (int k = 0; k < 40; k++) {
            long delay = 100 + 8L * k; // 100 .. 412 ms: level 1 and level 2, several buckets each
            probes.add(new Probe("delay " + delay, delay, runOrder::add));
        }
        Collections.shuffle(probes, new Random(42));

        probes.forEach(p -> p.addTo(timer));

        awaiting().until(() -> runOrder.size() == probes.size());
        List<Probe> ran = new ArrayList<>(runOrder);
        long tickNanos = TimeUnit.MILLISECONDS.toNanos(1);
        for (int i = 0; i < ran.size(); i++) {
            for (int j = i + 1; j < ran.size(); j++) {
                Probe first = ran.get(i);
                Probe second = ran.get(j);
                // the deadline lies between (nanoTime before add) + delay and (nanoTime after add) + delay;
                // only a pair whose deadlines are surely a tick apart has a required order
                boolean secondSurelyDueEarlier = second.latestDeadlineNanos() + tickNanos <= first.earliestDeadlineNanos();
                assertFalse(secondSurelyDueEarlier, () -> second + " ran after " + first + ", though due earlier");
            }
        }
    }

    // tasks of one delay added in order run in that order: SystemTimerDrivenTest (in real time the
    // reaper's wheel clock may lag the adds, and the first of them then wait a level up)

    // ---------------------------------------------------------------------------------------------
    // Cancel

    @Test
    void taskCancelledBeforeItsDeadlineNeverRuns() {
        SystemTimer timer = start(1, 20);
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            probes.add(new Probe("#" + i, 1_000 + 10L * i)); // a second to cancel them in, even on a loaded box
        }
        probes.forEach(p -> p.addTo(timer));

        for (int i = 0; i < probes.size(); i += 2) {
            assertTrue(probes.get(i).cancel(), "cancel of " + probes.get(i));
        }
        assertEquals(10, timer.size());
        Probe sentinel = new Probe("sentinel", 1_300); // due after every cancelled deadline
        sentinel.addTo(timer);
        awaiting().until(sentinel::hasRun);

        for (int i = 0; i < probes.size(); i++) {
            Probe p = probes.get(i);
            assertEquals(i % 2 == 0 ? 0 : 1, p.runs.get(), () -> p + " runs");
        }
        assertEquals(0, timer.size());
    }

    @Test
    void cancelReturnsTrueOnceThenFalse() {
        SystemTimer timer = start(1, 20);
        Probe probe = new Probe("far", HOUR_MS);
        probe.addTo(timer);
        assertEquals(1, timer.size());

        assertTrue(probe.cancel());
        assertTrue(probe.isCancelled());
        assertEquals(0, timer.size());
        assertFalse(probe.cancel());
        assertEquals(0, timer.size(), "a losing cancel does not count again");
    }

    @Test
    void cancelAfterTheTaskRanReturnsFalse() {
        SystemTimer timer = start(1, 20);
        Probe probe = new Probe("quick", 1);
        probe.addTo(timer);
        awaiting().until(probe::hasRun);

        assertFalse(probe.cancel());
        assertFalse(probe.isCancelled());
        assertEquals(0, timer.size());
    }

    @Test
    void taskCancelledBeforeAddIsIgnoredByAdd() {
        SystemTimer timer = start(1, 20);
        Probe cancelled = new Probe("cancelled first", 0);
        assertTrue(cancelled.cancel());

        cancelled.addTo(timer); // no exception: ignored
        assertEquals(0, timer.size());
        Probe sentinel = new Probe("sentinel", 20); // would run after the cancelled one, had it been scheduled
        sentinel.addTo(timer);
        awaiting().until(sentinel::hasRun);

        assertEquals(0, cancelled.runs.get());
        assertEquals(0, timer.size());
    }

    @Test
    void cancelledFarTaskIsReleasedAtOnceNotWhenItsBucketComesRound() {
        SystemTimer timer = start(1, 20);
        WeakReference<Probe> cancelled = addFarTaskAndCancelIt(timer);

        awaiting().until(() -> {
            System.gc();
            return cancelled.get() == null;
        });
        assertEquals(0, timer.size());
    }

    private WeakReference<Probe> addFarTaskAndCancelIt(SystemTimer timer) {
        Probe probe = new Probe("far", HOUR_MS);
        probe.addTo(timer);
        awaitReaper(Thread.State.TIMED_WAITING); // the task is in the wheel
        assertTrue(probe.cancel());
        return new WeakReference<>(probe);
    }

    // ---------------------------------------------------------------------------------------------
    // add, size, close

    @Test
    void addingTheSameTaskTwiceThrows() {
        SystemTimer timer = start(1, 20);
        SystemTimer other = start(1, 20);
        Probe pending = new Probe("pending", HOUR_MS);
        pending.addTo(timer);

        assertThrows(IllegalStateException.class, () -> timer.add(pending));
        assertThrows(IllegalStateException.class, () -> other.add(pending));
        assertEquals(1, timer.size());
        assertEquals(0, other.size());

        Probe ran = new Probe("ran", 0);
        ran.addTo(timer);
        awaiting().until(ran::hasRun);
        assertThrows(IllegalStateException.class, () -> timer.add(ran), "nor once it ran");
        assertEquals(1, ran.runs.get());
    }

    @Test
    void addAfterCloseThrows() {
        SystemTimer timer = start(1, 20);
        timer.close();

        assertThrows(IllegalStateException.class, () -> timer.add(new Probe("late", 0)));
        assertEquals(0, timer.size());
    }

    @Test
    void sizeCountsExactlyTheTasksNeitherRunNorCancelled() {
        SystemTimer timer = start(1, 20);
        List<Probe> far = new ArrayList<>();
        List<Probe> near = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            far.add(new Probe("far " + i, HOUR_MS + i));
        }
        for (int i = 0; i < 5; i++) {
            near.add(new Probe("near " + i, i * 3L));
        }

        far.forEach(p -> p.addTo(timer));
        assertEquals(10, timer.size());

        far.subList(0, 3).forEach(Probe::cancel);
        assertEquals(7, timer.size());

        near.forEach(p -> p.addTo(timer));
        awaiting().until(() -> near.stream().allMatch(Probe::hasRun));
        assertEquals(7, timer.size(), "the near tasks ran: only the far ones remain");

        far.subList(3, 10).forEach(Probe::cancel);
        assertEquals(0, timer.size());
    }

    @Test
    void closeStopsTheReaperAndExecutorThreadsAndIsIdempotent() {
        SystemTimer timer = start(1, 20);
        Probe ran = new Probe("ran", 0);
        ran.addTo(timer); // starts the executor thread
        awaiting().until(ran::hasRun);
        new Probe("far", HOUR_MS).addTo(timer);
        assertTrue(thread(name + "-reaper").isPresent());
        assertTrue(thread(name + "-executor").isPresent());

        timer.close();
        timer.close();

        awaiting().until(() -> thread(name + "-reaper").isEmpty() && thread(name + "-executor").isEmpty());
        timer.close();
    }

    @Test
    void closeDropsTasksThatHaveNotRunYet() {
        SystemTimer closed = start(1, 20);
        Probe dropped = new Probe("dropped", 1_000); // a second to close the timer in
        dropped.addTo(closed);
        closed.close();

        SystemTimer clock = start(1, 20);
        Probe sentinel = new Probe("sentinel", 1_200);
        sentinel.addTo(clock);
        awaiting().until(sentinel::hasRun);

        assertEquals(0, dropped.runs.get());
    }

    @Test
    void constructorRejectsBadArgumentsWithoutStartingThreads() {
        String bad = uniqueName();

        assertThrows(IllegalArgumentException.class, () -> track(new SystemTimer(bad, 0, 20)));
        IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> track(new SystemTimer(bad, Long.MAX_VALUE, 20)));
        assertTrue(tooLarge.getMessage().startsWith("tickMs must be from 1 to "), "the message says why a large tick is refused: "
                + tooLarge.getMessage());
        assertThrows(IllegalArgumentException.class, () -> track(new SystemTimer(bad, 1, 1)));
        assertThrows(NullPointerException.class, () -> track(new SystemTimer(null, 1, 20)));
        assertTrue(thread(bad + "-reaper").isEmpty());
    }

    // ---------------------------------------------------------------------------------------------
    // Threads

    @Test
    void tasksRunOnTheExecutorThreadNeverOnTheCallerOfAdd() {
        SystemTimer timer = start(1, 20);
        List<Probe> probes = new ArrayList<>();
        for (long delay : new long[] {0, 0, 0, 1, 5}) {
            probes.add(new Probe("delay " + delay, delay));
        }

        probes.forEach(p -> p.addTo(timer));

        awaiting().until(() -> probes.stream().allMatch(Probe::hasRun));
        for (Probe p : probes) {
            assertNotEquals(Thread.currentThread(), p.ranOn);
            assertEquals(name + "-executor", p.ranOn.getName());
            assertTrue(p.ranOn.isDaemon());
        }
    }

    @Test
    void taskThatThrowsDoesNotStopLaterTasks() {
        SystemTimer timer = start(1, 20);
        Probe throwing = new Probe("throws", 0, p -> {
            throw new IllegalStateException("expected by the test: a task that fails");
        });
        Probe erring = new Probe("errs", 1, p -> {
            throw new AssertionError("expected by the test: a task that fails with an Error");
        });
        Probe later = new Probe("later", 10);
        Probe muchLater = new Probe("much later", 50);

        throwing.addTo(timer);
        erring.addTo(timer);
        later.addTo(timer);
        muchLater.addTo(timer);

        awaiting().until(() -> later.hasRun() && muchLater.hasRun());
        assertTrue(throwing.hasRun() && erring.hasRun());
        assertEquals(0, timer.size());
    }

    @Test
    void idleReaperParksWithoutATimeout() {
        SystemTimer timer = start(1, 20);
        awaitReaper(Thread.State.WAITING);
        assertSame(timer, LockSupport.getBlocker(reaper()));

        Probe probe = new Probe("once", 1);
        probe.addTo(timer);
        awaiting().until(probe::hasRun);

        awaitReaper(Thread.State.WAITING); // and again once the wheel is empty
    }

    @Test
    void reaperWithOnlyAFarTaskSleepsUntilItInsteadOfTicking() {
        SystemTimer timer = start(1, 20);
        Probe far = new Probe("far", HOUR_MS);
        far.addTo(timer);
        awaitReaper(Thread.State.TIMED_WAITING);

        // a reaper waking every 1 ms tick would park hundreds of times in 300 ms; one parked until
        // the far deadline does not park again (a spurious wake-up or two is tolerated)
        long parks = parkCount(reaper());
        awaiting().during(Duration.ofMillis(300)).until(() -> parkCount(reaper()) <= parks + 2);

        assertTrue(far.cancel());
        awaitReaper(Thread.State.WAITING); // a cancelled task no longer keeps a wake-up pending
    }

    @Test
    void earlierTaskWakesAReaperParkedForAFarTask() {
        SystemTimer timer = start(1, 20);
        new Probe("far", HOUR_MS).addTo(timer);
        awaitReaper(Thread.State.TIMED_WAITING);

        Probe soon = new Probe("soon", 10);
        soon.addTo(timer);

        awaiting().until(soon::hasRun); // without a wake-up it would run an hour from now
        assertNotEarly(soon);
        assertEquals(1, timer.size());
    }

    // ---------------------------------------------------------------------------------------------
    // Concurrency

    /**
     * Tasks with deadlines spread over level boundaries are cancelled, two threads per task at the
     * same instant, while the reaper moves them between levels and expires them. For every task
     * exactly one of "run" and "cancel returned true" must happen: never both, never neither.
     */
    @Tag("stress")
    @ParameterizedTest(name = "wheelSize {0}")
    @ValueSource(ints = {2, 8, 20})
    void cancelRacingWithReinsertionEitherRunsOrCancelsEachTaskExactlyOnce(int wheelSize) throws Exception {
        SystemTimer timer = start(1, wheelSize);
        int cancellers = 4;
        int tasks = 1_200;
        for (int round = 0; round < 2; round++) {
            Random random = new Random(1_000L * wheelSize + round);
            List<Probe> probes = new ArrayList<>();
            List<List<long[]>> plans = new ArrayList<>(); // per canceller: {task index, cancel offset ns}
            for (int c = 0; c < cancellers; c++) {
                plans.add(new ArrayList<>());
            }
            for (int i = 0; i < tasks; i++) {
                long delay = delayNearLevelBoundary(random, wheelSize, 400);
                probes.add(new Probe("#" + i + " delay " + delay, delay));
                if (random.nextInt(3) > 0) { // two of three tasks get a cancel, from two threads at once
                    long at = TimeUnit.MILLISECONDS.toNanos(random.nextInt((int) delay + 4));
                    int c = random.nextInt(cancellers);
                    plans.get(c).add(new long[] {i, at});
                    plans.get((c + 1) % cancellers).add(new long[] {i, at});
                }
            }
            plans.forEach(plan -> plan.sort((a, b) -> Long.compare(a[1], b[1])));

            CyclicBarrier lineUp = new CyclicBarrier(cancellers + 1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long go = System.nanoTime();
            List<Thread> threads = new ArrayList<>();
            for (List<long[]> plan : plans) {
                Thread t = new Thread(() -> {
                    try {
                        lineUp.await();
                        for (long[] step : plan) {
                            long wait = go + step[1] - System.nanoTime();
                            if (wait > 0) {
                                LockSupport.parkNanos(wait); // paces the cancels across the run; waits for no outcome
                            }
                            Probe p = probes.get((int) step[0]);
                            if (p.cancel()) {
                                p.cancelWins.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "canceller");
                t.start();
                threads.add(t);
            }
            lineUp.await();
            probes.forEach(p -> p.addTo(timer)); // some cancels reach a task before its add: add ignores it
            for (Thread t : threads) {
                t.join(PATIENCE.toMillis());
                assertFalse(t.isAlive(), "canceller stuck");
            }
            assertNull(failure.get(), () -> "thread failed: " + failure.get());

            awaiting().until(() -> probes.stream().allMatch(p -> p.runs.get() + p.cancelWins.get() >= 1));
            List<String> broken = new ArrayList<>();
            for (Probe p : probes) {
                if (p.runs.get() + p.cancelWins.get() != 1) {
                    broken.add(p + ": runs " + p.runs + ", cancel wins " + p.cancelWins);
                }
                if (p.hasRun() && p.ranAtNanos - p.addedAtNanos < TimeUnit.MILLISECONDS.toNanos(p.delayMs())) {
                    broken.add(p + ": ran early");
                }
            }
            assertEquals(List.of(), broken, "round " + round);
            assertEquals(0, timer.size());
        }
    }

    @Tag("stress")
    @Test
    void concurrentAddsFromSeveralThreadsRunEveryTaskExactlyOnce() throws Exception {
        SystemTimer timer = start(1, 20);
        int adders = 4;
        int perAdder = 1_000;
        List<Probe> probes = Collections.synchronizedList(new ArrayList<>());
        CyclicBarrier lineUp = new CyclicBarrier(adders);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int a = 0; a < adders; a++) {
            Random random = new Random(a);
            Thread t = new Thread(() -> {
                try {
                    lineUp.await();
                    for (int i = 0; i < perAdder; i++) {
                        Probe p = new Probe("delay", random.nextInt(60));
                        probes.add(p);
                        p.addTo(timer);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "adder-" + a);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join(PATIENCE.toMillis());
            assertFalse(t.isAlive(), "adder stuck");
        }
        assertNull(failure.get(), () -> "thread failed: " + failure.get());
        assertEquals(adders * perAdder, probes.size());

        awaiting().until(() -> probes.stream().allMatch(Probe::hasRun));
        for (Probe p : probes) {
            assertEquals(1, p.runs.get());
            assertNotEarly(p);
        }
        assertEquals(0, timer.size());
    }

    /** Half uniform in [0, max], half within a tick of a multiple of a level's span. */
    private static long delayNearLevelBoundary(Random random, int wheelSize, long max) {
        if (random.nextBoolean()) {
            return random.nextInt((int) max + 1);
        }
        List<Long> spans = new ArrayList<>();
        for (long span = wheelSize; span <= max; span *= wheelSize) {
            spans.add(span);
        }
        long span = spans.get(random.nextInt(spans.size()));
        long multiple = span * (1 + random.nextInt((int) (max / span)));
        return Math.max(0, Math.min(max, multiple + random.nextInt(3) - 1));
    }

    // ---------------------------------------------------------------------------------------------

    private SystemTimer start(long tickMs, int wheelSize) {
        name = uniqueName();
        return track(new SystemTimer(name, tickMs, wheelSize));
    }

    private SystemTimer track(SystemTimer timer) {
        timers.add(timer);
        return timer;
    }

    private static String uniqueName() {
        return "systemtimer-test-" + TIMER_IDS.incrementAndGet();
    }

    private static ConditionFactory awaiting() {
        return Awaitility.await().atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
    }

    private Thread reaper() {
        return thread(name + "-reaper").orElseThrow(() -> new AssertionError("no thread " + name + "-reaper"));
    }

    private void awaitReaper(Thread.State state) {
        awaiting().until(() -> reaper().getState() == state);
    }

    private static Optional<Thread> thread(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(threadName)).findFirst();
    }

    /** How many times the thread has waited or parked, by the JVM's own count. */
    private static long parkCount(Thread thread) {
        return ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId()).getWaitedCount();
    }

    private static void assertNotEarly(Probe p) {
        long elapsed = p.ranAtNanos - p.addedAtNanos;
        assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(p.delayMs()),
                () -> p + " ran " + elapsed + " ns after add, before its delay");
    }

    /** Records when, where and how often it ran. */
    private static final class Probe extends TimerTask {
        final String label;
        final Consumer<Probe> body;
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger cancelWins = new AtomicInteger();
        volatile long addedAtNanos;
        volatile long addReturnedAtNanos;
        volatile long ranAtNanos;
        volatile Thread ranOn;

        Probe(String label, long delayMs) {
            this(label, delayMs, p -> { });
        }

        Probe(String label, long delayMs, Consumer<Probe> body) {
            super(delayMs);
            this.label = label;
            this.body = body;
        }

        void addTo(Timer timer) {
            addedAtNanos = System.nanoTime();
            timer.add(this);
            addReturnedAtNanos = System.nanoTime();
        }

        @Override
        public void run() {
            ranAtNanos = System.nanoTime();
            ranOn = Thread.currentThread();
            runs.incrementAndGet();
            body.accept(this);
        }

        boolean hasRun() {
            return runs.get() > 0;
        }

        long earliestDeadlineNanos() {
            return addedAtNanos + TimeUnit.MILLISECONDS.toNanos(delayMs());
        }

        long latestDeadlineNanos() {
            return addReturnedAtNanos + TimeUnit.MILLISECONDS.toNanos(delayMs());
        }

        @Override
        public String toString() {
            return label;
        }
    }
}
