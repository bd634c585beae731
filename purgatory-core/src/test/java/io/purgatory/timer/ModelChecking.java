package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuarantee;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/**
 * What the Lincheck model checks of the core share: the options of a run, a check that a broken
 * variant fails, and the one guarantee every run that parks threads needs.
 *
 * <p>Lincheck 3.7's model checker lets {@code LockSupport.park} return spuriously wherever it is
 * called from user code, so a lost {@code unpark} never shows as a hang: the waiter just wakes up.
 * A method marked silent (Lincheck's internal {@code mute} guarantee, the one the JDK's own
 * synchronizers get) parks for real, so a waiter that nobody wakes is reported as a deadlock. Runs
 * mark the methods that park that way, with {@link #parksInEarnest}.
 */
public final class ModelChecking {

    private ModelChecking() {
    }

    /**
     * Model-checking options: {@code iterations} random scenarios of {@code threads} threads running
     * {@code actors} operations each (one operation before and after them, sequentially), each
     * scenario explored in up to {@code invocations} interleavings.
     */
    public static ModelCheckingOptions options(int iterations, int invocations, int threads, int actors) {
        return new ModelCheckingOptions()
                .iterations(iterations)
                .invocationsPerIteration(invocations)
                .threads(threads)
                .actorsPerThread(actors)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    /** A guarantee that {@code method} of {@code owner} parks without spurious wake-ups (see the class comment). */
    public static ManagedStrategyGuarantee parksInEarnest(Class<?> owner, String method) {
        return ManagedStrategyGuaranteeKt.forClasses(owner.getName()).methods(method).mute$lincheck();
    }

    /**
     * Asserts that the model checker finds a failing interleaving of {@code test} (a deliberately
     * broken variant) and prints it, so that the report shows what the check catches.
     */
    public static LincheckAssertionError assertCaught(ModelCheckingOptions options, Class<?> test) {
        LincheckAssertionError caught = assertThrows(LincheckAssertionError.class,
                () -> options.minimizeFailedScenario(false).check(test),
                () -> "the model checker found no failing interleaving of " + test.getSimpleName());
        System.err.println(test.getName() + ", as the model checker caught it:" + caught.getMessage());
        return caught;
    }
}
