package io.purgatory.demo.broker.metrics;

import java.io.PrintStream;
import java.util.function.IntConsumer;

/**
 * An {@link OutOfMemoryError} ends the process at once, as {@code -XX:+ExitOnOutOfMemoryError}
 * does: one line on standard error and exit status {@value #STATUS} (the status the JVM's flag
 * gives), so that a supervisor restarts a broker it can trust, instead of one whose handler threads
 * and event loops die one by one while it keeps serving some connections and ignores SIGTERM.
 *
 * <p>Every place the broker's own threads meet a {@link Throwable} they did not expect (the
 * request handlers, the Kafka and dashboard pipelines' {@code exceptionCaught}, the accept handler,
 * and the default uncaught-exception handler that {@link #installAsDefaultHandler} sets) calls
 * {@link #check}. An error thrown where the broker never sees it (inside Netty's event loop tasks)
 * is covered only by the JVM's flag, which {@code demo.sh} and the documented launch commands pass.
 *
 * <p>The exit is a {@link Runtime#halt halt}: shutdown hooks do not run, since answering parked
 * requests needs memory the process no longer has.
 *
 * <p>Thread-safe: immutable; the process-wide instance writes to {@link System#err}.
 */
public final class OutOfMemoryExit {
    /** The exit status, as the JVM's {@code -XX:+ExitOnOutOfMemoryError} exits. */
    public static final int STATUS = 3;
    private static final OutOfMemoryExit PROCESS = new OutOfMemoryExit(System.err, status -> Runtime.getRuntime().halt(status));

    private final PrintStream err;
    private final IntConsumer halt;

    /**
     * @param err where the one line goes
     * @param halt ends the process with the status it is given ({@link Runtime#halt} but in tests)
     */
    OutOfMemoryExit(PrintStream err, IntConsumer halt) {
        this.err = err;
        this.halt = halt;
    }

    /** Halts the process if {@code error}, or any of its causes, is an {@link OutOfMemoryError}; otherwise returns. */
    public static void check(Throwable error) {
        PROCESS.onError(error);
    }

    /**
     * Makes the default uncaught-exception handler {@link #check} first, then print the stack trace
     * as the JVM's own does; for the {@code demo-broker} process, not for a broker embedded in an
     * application, which owns its threads' handlers.
     */
    public static void installAsDefaultHandler() {
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            check(error);
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace(System.err);
        });
    }

    /** Halts if {@code error} is or was caused by an {@link OutOfMemoryError}. */
    void onError(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof OutOfMemoryError oom) {
                try { // the line needs a little memory; the halt happens even without it
                    err.println("demo-broker: out of memory (" + oom.getMessage() + ") in thread " + Thread.currentThread().getName()
                            + "; exiting at once with status " + STATUS + " so that a supervisor can restart it");
                    err.flush();
                } finally {
                    halt.accept(STATUS);
                }
                return;
            }
        }
    }
}
