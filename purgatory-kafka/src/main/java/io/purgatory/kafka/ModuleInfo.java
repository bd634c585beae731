package io.purgatory.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What purgatory-kafka is: its version, the Kafka version it was built for, and the Kafka classes it
 * replaces. {@link #announce()}, called by the module's timers and purgatories when they are built,
 * logs once per class loader that the module is on, and warns if the running Kafka is not the
 * version the module was built for.
 *
 * <p>Thread-safe: the state is final and built in the holder's static initializer, which the JVM runs once.
 */
public final class ModuleInfo {

    /** The Kafka classes this module provides under Kafka's names; each concept is listed here only. */
    public static final List<String> REPLACED_CLASSES = List.of(
            "org.apache.kafka.server.purgatory.DelayedOperation",
            "org.apache.kafka.server.purgatory.DelayedOperationPurgatory",
            "org.apache.kafka.server.util.timer.Timer",
            "org.apache.kafka.server.util.timer.TimerTask",
            "org.apache.kafka.server.util.timer.TimerTaskEntry",
            "org.apache.kafka.server.util.timer.SystemTimer",
            "org.apache.kafka.server.util.timer.SystemTimerReaper");

    private static final Logger LOG = LoggerFactory.getLogger(ModuleInfo.class);

    private final String moduleVersion;
    private final String builtForKafka;

    private ModuleInfo(String moduleVersion, String builtForKafka) {
        this.moduleVersion = moduleVersion;
        this.builtForKafka = builtForKafka;
    }

    /** The module's own version, as built. */
    public String moduleVersion() {
        return moduleVersion;
    }

    /** The Kafka version whose classes' signatures the module was built and checked against. */
    public String builtForKafka() {
        return builtForKafka;
    }

    /** The module's build facts, read from its jar. */
    public static ModuleInfo get() {
        return Holder.INFO;
    }

    /**
     * Logs, the first time it is called in this class loader, one INFO line naming the module's version
     * and the Kafka version it was built for, and one WARN if the Kafka on the class path is another.
     */
    public static void announce() {
        Holder.announced();
    }

    /**
     * The WARN for a Kafka version other than the one built for, or null if they match. A mismatch
     * changes nothing else: the module runs, with the signatures of {@code builtFor}; a Kafka class
     * that calls a member those lack fails at that call with {@code NoSuchMethodError}.
     */
    static String versionMismatch(String builtFor, String running) {
        if (builtFor.equals(running)) {
            return null;
        }
        return "purgatory-kafka was built for Kafka " + builtFor + " but runs on Kafka " + running
                + ": Kafka's purgatory and timer classes are the module's, with Kafka " + builtFor
                + "'s signatures; use the purgatory-kafka built for Kafka " + running + ", or remove it from the class path";
    }

    private static ModuleInfo load() {
        Properties props = properties(ModuleInfo.class.getResourceAsStream("purgatory-kafka.properties"), "purgatory-kafka.properties");
        return new ModuleInfo(props.getProperty("module.version"), props.getProperty("kafka.version"));
    }

    /**
     * The running Kafka's version, as its own jars state it ({@code kafka/kafka-version.properties}, which
     * kafka-clients and kafka-server-common carry), or "unknown".
     */
    static String runningKafka() {
        ClassLoader loader = ModuleInfo.class.getClassLoader();
        InputStream in = loader == null ? null : loader.getResourceAsStream("kafka/kafka-version.properties");
        if (in == null) {
            return "unknown";
        }
        return properties(in, "kafka/kafka-version.properties").getProperty("version", "unknown");
    }

    private static Properties properties(InputStream in, String name) {
        if (in == null) {
            throw new IllegalStateException(name + " is missing from the module's jar");
        }
        Properties props = new Properties();
        try (in) {
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(name + " unreadable", e);
        }
        return props;
    }

    /** Lazy, once: the JVM runs a class's static initializer exactly once. */
    private static final class Holder {
        static final ModuleInfo INFO = load();

        static {
            String running = runningKafka();
            LOG.info("purgatory-kafka {} is on: Kafka's purgatory and timer (DelayedOperationPurgatory, SystemTimer) run on purgatory-core;"
                    + " built for Kafka {}, running on Kafka {}", INFO.moduleVersion, INFO.builtForKafka, running);
            String mismatch = versionMismatch(INFO.builtForKafka, running);
            if (mismatch != null) {
                LOG.warn(mismatch);
            }
        }

        static void announced() {
            // the static initializer did the work
        }
    }
}
