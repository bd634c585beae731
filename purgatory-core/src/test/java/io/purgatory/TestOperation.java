package io.purgatory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link DelayedOperation} for tests: its condition is a flag the test sets, and it counts what
 * the purgatory does to it.
 *
 * <p>Besides the counts, it checks the one concurrency promise a user relies on: {@code tryComplete}
 * and {@code onComplete} never run at the same time on two threads (KAFKA-19312). Each of them
 * claims the operation for its thread on entry; a claim by a second thread while the first still
 * holds it is counted in {@code overlaps}. Nesting on one thread ({@code tryComplete} calling
 * {@code forceComplete}, hence {@code onComplete}) is the normal path and is not an overlap.
 */
class TestOperation extends DelayedOperation {

    /** What happened to the operation, in order; for the single-threaded tests. */
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger tries = new AtomicInteger();
    final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger expirations = new AtomicInteger();
    /** {@code completions} as onExpiration saw it; 1 when onComplete ran first, as it must. */
    volatile int completionsSeenByExpiration = -1;
    /** {@code completion()} and {@code cancelReason()} as onComplete saw them. */
    volatile Completion completionSeenByOnComplete;
    volatile Object reasonSeenByOnComplete;

    private final LongAdder overlaps;
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    /** Nesting depth of the owner thread; touched only by the owner. */
    private int depth;

    private volatile boolean ready;
    /** Runs inside tryComplete after the condition was read, before it is acted on. */
    volatile Runnable duringTry = () -> { };
    /** Runs inside onComplete. */
    volatile Runnable duringComplete = () -> { };
    /** Runs inside onExpiration. */
    volatile Runnable duringExpiration = () -> { };
    /** Something that must become unreachable once the operation is done with. */
    Object payload;

    TestOperation(long delayMs) {
        this(delayMs, new LongAdder());
    }

    /** @param overlaps where to count overlapping tryComplete/onComplete, shared by many operations */
    TestOperation(long delayMs, LongAdder overlaps) {
        super(delayMs);
        this.overlaps = overlaps;
    }

    void setReady(boolean ready) {
        this.ready = ready;
    }

    /**
     * Whether the callbacks its completion calls have been entered: {@code onComplete}, and
     * {@code onExpiration} too when it expired or its purgatory closed. The purgatory counts an
     * operation in its metrics and reports it completed before these run, on the completing thread.
     */
    boolean callbacksRan() {
        Completion how = completion();
        if (how == null || completions.get() == 0) {
            return false;
        }
        return !(how == Completion.EXPIRED || how == Completion.CLOSED) || expirations.get() > 0;
    }

    long overlaps() {
        return overlaps.sum();
    }

    @Override
    public boolean tryComplete() {
        boolean entered = enter();
        try {
            tries.incrementAndGet();
            boolean condition = ready;
            duringTry.run();
            return condition && forceComplete();
        } finally {
            exit(entered);
        }
    }

    @Override
    public void onComplete() {
        boolean entered = enter();
        try {
            completionSeenByOnComplete = completion();
            reasonSeenByOnComplete = cancelReason();
            completions.incrementAndGet();
            events.add("onComplete");
            duringComplete.run();
        } finally {
            exit(entered);
        }
    }

    @Override
    public void onExpiration() {
        completionsSeenByExpiration = completions.get();
        expirations.incrementAndGet();
        events.add("onExpiration");
        duringExpiration.run();
    }

    private boolean enter() {
        Thread me = Thread.currentThread();
        if (owner.get() == me) {
            depth++;
            return true;
        }
        if (owner.compareAndSet(null, me)) {
            depth = 1;
            return true;
        }
        overlaps.increment();
        return false;
    }

    private void exit(boolean entered) {
        if (entered && --depth == 0) {
            owner.set(null);
        }
    }

    @Override
    public String toString() {
        return "TestOperation[delay " + delayMs() + " ms, tries " + tries + ", completions " + completions
                + ", expirations " + expirations + "]";
    }
}
