package io.purgatory.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.HashSet;
import java.util.Set;

/**
 * The names under which the module's purgatories register their purgatory-core MBean
 * ({@code io.purgatory:type=DelayedOperationPurgatory,name="<name>"}): {@code <purgatory>-broker<id>},
 * unique among the purgatories open in this JVM. A broker that runs as broker and controller opens
 * some purgatories twice under one Kafka name (two {@code AlterAcls}, one per role): the second gets
 * {@code -2}, and so on, the lowest suffix free. A name is free again once its purgatory shut down.
 *
 * <p>Thread-safe: every method holds the class's lock.
 */
public final class PurgatoryNames {

    @GuardedBy("PurgatoryNames.class")
    private static final Set<String> OPEN = new HashSet<>();

    private PurgatoryNames() {
    }

    /** Takes a name for a purgatory opening: {@code <purgatory>-broker<id>}, with {@code -2}, {@code -3}... if taken. */
    public static synchronized String open(String purgatoryName, int brokerId) {
        String base = purgatoryName + "-broker" + brokerId;
        String name = base;
        for (int n = 2; !OPEN.add(name); n++) {
            name = base + "-" + n;
        }
        return name;
    }

    /** Frees a name taken by {@link #open}, when its purgatory shuts down. */
    public static synchronized void close(String name) {
        OPEN.remove(name);
    }
}
