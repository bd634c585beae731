package io.purgatory;

/**
 * The operation behind every wait of {@link Waiters}: answers its waiter, exactly once, with the
 * {@link WaitOutcome} of how it completed. Subclasses say what they wait for ({@code tryComplete})
 * and whom they answer ({@link #answer}).
 *
 * <p>Thread-safe, as every {@link DelayedOperation}: {@code answer} runs once, under the
 * operation's lock, on whichever thread completed it.
 */
abstract class Waiter extends DelayedOperation {

    Waiter(long delayMs) {
        super(delayMs);
    }

    @Override
    public final void onComplete() {
        Completion how = completion();
        assert how != null; // set before onComplete runs
        answer(WaitOutcome.of(how));
    }

    @Override
    public final void onExpiration() {
        // answered by onComplete, which knows from completion() that it expired
    }

    /** Hands the outcome to the waiter; once, under the operation's lock. */
    abstract void answer(WaitOutcome outcome);
}
