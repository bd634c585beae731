package io.purgatory;

import io.purgatory.internal.OperationState;
import io.purgatory.timer.Timer;

/**
 * The purgatory as the operations it parks see it: the room below the purgatory owns this type, so
 * that {@link Operations} calls up through it and never names {@link DelayedOperationPurgatory}
 * (which extends it). An abstract class rather than an interface so that its methods stay
 * package-private in the public purgatory.
 *
 * <p>Thread-safety: that of the purgatory; {@link #completed} is called under the operation's lock.
 */
abstract class OperationHost {

    /** The purgatory's name, for messages. */
    abstract String name();

    /** The timer that expires the purgatory's operations. */
    abstract Timer timer();

    /** Unlinks and counts a completing operation, before its {@code onComplete} runs; under its lock. */
    abstract void completed(OperationState op, Completion how);
}
