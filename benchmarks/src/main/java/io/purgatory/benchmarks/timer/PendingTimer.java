package io.purgatory.benchmarks.timer;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A timer that already holds {@link #pending} long-deadline tasks when measurement starts, shared by
 * all benchmark threads of a trial.
 *
 * <p>The pending tasks are due uniformly spread between 10 and 20 minutes after setup, from a fixed
 * seed, so none of them expires during a trial of the default length (about 10 seconds) nor during
 * one of a few minutes; a trial longer than 10 minutes would start expiring them and measure that
 * too. They stand for the requests a busy broker keeps waiting: they fill the wheel's upper levels,
 * Netty's buckets and the JDK's heap, which is what a measured operation has to work around.
 *
 * <p>Setup and teardown run once per trial, on one JMH thread; during the trial the timer is used
 * concurrently, as the timers allow (every timer compared is thread-safe); this state's own fields
 * are written in setup only.
 */
@State(Scope.Benchmark)
public class PendingTimer {

    private static final long PENDING_MIN_DELAY_MS = TimeUnit.MINUTES.toMillis(10);
    private static final long PENDING_DELAY_SPREAD_MS = TimeUnit.MINUTES.toMillis(10);
    private static final long SEED = 42;

    /** Long-deadline tasks in the timer before measurement. */
    @Param({"1000", "100000", "1000000"})
    public int pending;

    /** The implementation under test. */
    @Param({"PURGATORY", "KAFKA", "NETTY", "JDK"})
    public TimerImplementation timer;

    private TimerUnderTest opened;

    @Setup(Level.Trial)
    public void open() {
        opened = timer.open();
        schedulePending(opened.scheduler(() -> { }), pending);
    }

    @TearDown(Level.Trial)
    public void close() {
        opened.close();
    }

    /** The timer of this trial. */
    public TimerUnderTest timer() {
        return opened;
    }

    private static void schedulePending(TimerUnderTest.Scheduler<?> scheduler, int count) {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < count; i++) {
            scheduler.add(PENDING_MIN_DELAY_MS + random.nextLong(PENDING_DELAY_SPREAD_MS));
        }
    }
}
