package io.purgatory.benchmarks.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Another process on this machine, read from Linux's /proc: its CPU time (user and system) and its
 * resident memory. For a server under load in its own process, whatever its language. Immutable.
 */
final class ServerProcess {

    /** Linux's clock tick: /proc reports CPU time in 1/100 s. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private final long pid;

    ServerProcess(long pid) {
        this.pid = pid;
    }

    /** User plus system CPU time of every thread so far, in nanoseconds (10 ms resolution). */
    long cpuNanos() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // fields after the command name, which is in parentheses and may hold spaces: state is field 3
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long userTicks = Long.parseLong(fields[11]); // field 14
        long systemTicks = Long.parseLong(fields[12]); // field 15
        return (userTicks + systemTicks) * NANOS_PER_TICK;
    }

    /** Resident memory now, in bytes (VmRSS). */
    long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }
}
