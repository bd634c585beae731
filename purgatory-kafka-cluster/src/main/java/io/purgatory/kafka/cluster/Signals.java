package io.purgatory.kafka.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * POSIX signals to a process by PID, through the system's {@code kill} command: the JDK sends only TERM and
 * KILL, and the fault tests need STOP and CONT as well.
 *
 * <p>Stateless, so thread-safe.
 */
final class Signals {

    private Signals() {
    }

    /**
     * Sends signal {@code name} (e.g. {@code STOP}) to {@code pid}.
     *
     * @throws IllegalStateException if {@code kill} fails (the process is gone, say)
     */
    static void send(long pid, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + name + " " + pid + " did not return within 10 s");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
                throw new IllegalStateException("kill -" + name + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pid, e);
        }
    }
}
