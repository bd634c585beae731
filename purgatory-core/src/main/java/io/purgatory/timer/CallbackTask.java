package io.purgatory.timer;

import io.purgatory.internal.TimerNodes;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A callback that runs once: the node behind {@link Timer#schedule(Runnable, long)}, and the base of
 * the {@linkplain RecurringTask recurring} ones. The handle is the timer's own node, so a callback
 * costs one object: the {@link TimerTask} fields plus the callback reference (56 bytes with
 * compressed references, as much as any {@code TimerTask} subclass holding a callback).
 *
 * <p>A callback that throws an exception (or an {@link Error} other than a
 * {@link VirtualMachineError}) is logged at WARN, once per throw, and does not reach the timer: the
 * timer's threads, or the caller of {@link MockTimer#advance}, carry on. A {@code VirtualMachineError}
 * ({@code OutOfMemoryError}, {@code StackOverflowError}) is not caught, as executors do not: it
 * reaches the thread that ran the callback (see {@link Timer}).
 *
 * <p>Thread-safe: the state is the {@link TimerTask}'s compare-and-set; {@code callback} is final.
 */
class CallbackTask extends TimerTask implements ScheduledTask {

    private static final Logger LOG = LoggerFactory.getLogger(ScheduledTask.class);

    private final Runnable callback;

    CallbackTask(long delayMs, Runnable callback) {
        super(delayMs);
        this.callback = Objects.requireNonNull(callback, "callback");
    }

    /** The timer's entry point: runs the callback. */
    @Override
    public void run() {
        runCallback();
    }

    /** Runs the callback; what it throws is logged, not thrown, but for a VirtualMachineError. */
    final void runCallback() {
        try {
            callback.run();
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable t) {
            LOG.warn("Timer {}: callback {} threw", host(), callback, t);
        }
    }

    @Override
    public boolean isDone() {
        return TimerNodes.state(this) == TimerNodes.EXPIRED || isCancelled();
    }

    @Override
    public long deadlineMs() {
        TaskHost host = host();
        assert host != null; // a callback's handle is added before it is returned
        return host.deadlineMsOfTick(TimerNodes.dueTick(this));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + callback + ", deadline " + deadlineMs() + " ms]";
    }
}
