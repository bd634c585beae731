package io.purgatory.timer;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuarantee;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * What the Lincheck model checks of the core share: the options of a run, a check that a broken
 * variant fails, and the one guarantee every run that parks threads needs.
 *
 * <p>Lincheck 3.7's model checker lets {@code LockSupport.park} return spuriously wherever it is
 * called from user code, so a lost {@code unpark} never shows as a hang: the waiter just wakes up.
 * In a method marked silent (Lincheck's internal {@code mute} guarantee) a park does not return
 * spuriously, so a waiter that nobody wakes is reported as a deadlock. Runs mark the methods that
 * park that way, with {@link #parksInEarnest}.
 *
 * <p>A hang in the model is found by the model checker itself, by counting: a deadlock when every
 * thread waits, a livelock when a loop makes no progress. Lincheck also stops an invocation that
 * runs longer than a wall-clock limit (30 s unless set) and reports it as hung, with a thread dump;
 * but an invocation's time is not the code's: each switch between its threads is a real unpark and
 * a wait for a core, and the first invocations to reach a class instrument it then: a correct
 * invocation's time grows with the machine's load (over a second on 2 cores at load 8), and a
 * loaded CI machine reported a hang where there was none. The limit is set here, for every check,
 * to {@value #STUCK_OUTSIDE_THE_MODEL_MS} ms: it only catches a thread stuck where the model
 * checker does not see it, and never judges how long a step took.
 */
public final class ModelChecking {

    /** The wall-clock limit of one invocation (see the class comment): no correct invocation on a loaded machine reaches it. */
    static final long STUCK_OUTSIDE_THE_MODEL_MS = 600_000;

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
                .actorsAfter(1)
                .invocationTimeout$lincheck(STUCK_OUTSIDE_THE_MODEL_MS);
    }

    /**
     * A guarantee that JMX runs as one step with no switch points inside: a purgatory registers its
     * metrics when it is made, which is not what the checks are about and would multiply their cost.
     */
    public static ManagedStrategyGuarantee jmxIgnored() {
        return ManagedStrategyGuaranteeKt.forClasses((String name) -> name.startsWith("javax.management.")
                || name.startsWith("java.lang.management.") || name.startsWith("com.sun.jmx.")).allMethods().ignore();
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

    /** Starts a hand-written scenario of {@code test}'s operations, for an interleaving that random scenarios rarely reach. */
    public static ScenarioBuilder scenario(Class<?> test) {
        return new ScenarioBuilder(test);
    }

    /** A scenario: operations run first on one thread, then on several threads in parallel. */
    public static final class ScenarioBuilder {
        private final Class<?> test;
        private final List<Actor> initial = new ArrayList<>();
        private final List<List<Actor>> parallel = new ArrayList<>();

        private ScenarioBuilder(Class<?> test) {
            this.test = test;
        }

        /** Adds an operation to the sequential part that runs before the threads. */
        public ScenarioBuilder first(String operation, Object... args) {
            initial.add(actor(operation, args));
            return this;
        }

        /** Adds an operation to parallel thread {@code thread} (0, 1, ...). */
        public ScenarioBuilder thread(int thread, String operation, Object... args) {
            while (parallel.size() <= thread) {
                parallel.add(new ArrayList<>());
            }
            parallel.get(thread).add(actor(operation, args));
            return this;
        }

        public ExecutionScenario build() {
            Actor validation = null;
            for (Method m : test.getMethods()) {
                if (m.isAnnotationPresent(Validate.class)) {
                    validation = new Actor(m, List.of());
                }
            }
            return new ExecutionScenario(initial, parallel, List.of(), validation);
        }

        private Actor actor(String operation, Object... args) {
            for (Method m : test.getMethods()) {
                if (m.getName().equals(operation) && m.getParameterCount() == args.length) {
                    return new Actor(m, Arrays.asList(args));
                }
            }
            throw new IllegalArgumentException(test.getName() + " has no operation " + operation + " of " + args.length + " arguments");
        }
    }
}
