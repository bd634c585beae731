package io.purgatory.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What purgatory-kafka is: its version, the Kafka line it was built for, and the Kafka classes it
 * replaces. {@link #announce()}, called by the module's timers and purgatories when they are built,
 * logs once per class loader that the module is on, and refuses to run on a Kafka line other than the
 * one it was built for, or beside a second purgatory-kafka jar.
 *
 * <p><b>The refusal.</b> A jar built for one Kafka line has that line's signatures (Kafka 4.0's
 * {@code DelayedOperation} has constructors and a {@code lock} field that 4.1's lacks; 3.9's purgatory is
 * Scala, in {@code kafka_2.13}, and its jar provides the timer alone), so on another
 * line a broker would start and then fail some requests with {@code NoSuchMethodError}. Instead, at
 * the first purgatory or timer the broker builds, the module logs one ERROR naming the Kafka version
 * found, the line the jar was built for and the jar to use, and every construction of a purgatory or
 * timer throws {@link IllegalStateException} with that message: the broker's start fails and it exits.
 * The running version is Kafka's own, as its jars state it ({@code kafka/kafka-version.properties},
 * which kafka-clients and kafka-server-common carry, and which Kafka's {@code AppInfoParser} reads);
 * lines are compared (major.minor), not patch releases.
 *
 * <p>Thread-safe: the state is final and built in the holder's static initializer, which the JVM runs once.
 */
public final class ModuleInfo {

    /** Kafka's timer classes (kafka-server-common), which the module provides under Kafka's names on every line. */
    public static final List<String> TIMER_CLASSES = List.of(
            "org.apache.kafka.server.util.timer.Timer",
            "org.apache.kafka.server.util.timer.TimerTask",
            "org.apache.kafka.server.util.timer.TimerTaskEntry",
            "org.apache.kafka.server.util.timer.SystemTimer",
            "org.apache.kafka.server.util.timer.SystemTimerReaper");

    /** Kafka's Java purgatory classes (kafka-server-common 4.0 and later), which the module provides on those lines. */
    public static final List<String> PURGATORY_CLASSES = List.of(
            "org.apache.kafka.server.purgatory.DelayedOperation",
            "org.apache.kafka.server.purgatory.DelayedOperationPurgatory");

    /** The Kafka lines a purgatory-kafka jar is built for, one jar each. */
    public static final List<String> LINES = List.of("3.9", "4.0", "4.1", "4.2", "4.3", "4.4");

    /**
     * The lines whose purgatory is Scala, in {@code kafka_2.13} ({@code kafka.server.DelayedOperationPurgatory}): their
     * jar provides the timer alone, and Kafka's own purgatory runs on it.
     */
    static final List<String> SCALA_PURGATORY_LINES = List.of("3.9");

    /** The module's build facts, in its jar (and in every other purgatory-kafka jar). */
    static final String PROPERTIES = "io/purgatory/kafka/purgatory-kafka.properties";

    private static final Logger LOG = LoggerFactory.getLogger(ModuleInfo.class);

    private final String moduleVersion;
    private final String builtForLine;
    private final String builtForKafka;

    ModuleInfo(String moduleVersion, String builtForLine, String builtForKafka) {
        this.moduleVersion = moduleVersion;
        this.builtForLine = builtForLine;
        this.builtForKafka = builtForKafka;
    }

    /** The module's own version, as built. */
    public String moduleVersion() {
        return moduleVersion;
    }

    /** The Kafka line (major.minor) the module was built for. */
    public String builtForLine() {
        return builtForLine;
    }

    /** The Kafka version whose classes' signatures the module was built and checked against. */
    public String builtForKafka() {
        return builtForKafka;
    }

    /** The Kafka classes this jar provides under Kafka's names: the timer's, and the purgatory's on a line whose purgatory is Java. */
    public List<String> replacedClasses() {
        if (SCALA_PURGATORY_LINES.contains(builtForLine)) {
            return TIMER_CLASSES;
        }
        List<String> all = new ArrayList<>(PURGATORY_CLASSES);
        all.addAll(TIMER_CLASSES);
        return List.copyOf(all);
    }

    /** What runs on purgatory-core with this jar, for the INFO line. */
    String whatRuns() {
        return SCALA_PURGATORY_LINES.contains(builtForLine)
                ? "Kafka's timer (SystemTimer, which Kafka's own purgatory kafka.server.DelayedOperationPurgatory runs on) runs on purgatory-core"
                : "Kafka's purgatory and timer (DelayedOperationPurgatory, SystemTimer) run on purgatory-core";
    }

    /** The file name of the module's jar for {@code line}. */
    public String jarName(String line) {
        return "purgatory-kafka-" + line + "-" + moduleVersion + ".jar";
    }

    /** The module's build facts, read from its jar. */
    public static ModuleInfo get() {
        return Holder.INFO;
    }

    /**
     * Logs, the first time it is called in this class loader, one INFO line naming the module's version
     * and the Kafka it was built for and runs on, or one ERROR if it must not run here (see the class
     * comment); in that case this and every later call throws.
     *
     * @throws IllegalStateException if the running Kafka is of another line, or a second purgatory-kafka jar is on the class path
     */
    public static void announce() {
        String refusal = Holder.REFUSAL;
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
    }

    /** The Kafka line of a version: its major.minor ("4.0" of "4.0.2"), or the version itself if it has no minor. */
    static String lineOf(String version) {
        String[] parts = version.split("[.-]", 3);
        return parts.length < 2 ? version : parts[0] + "." + parts[1];
    }

    /**
     * Why this module must not run, or null if it may: its jars on the class path ({@code jars}, more
     * than one is refused) and the running Kafka's version ({@code running}; "unknown" is let through,
     * with the INFO line saying so).
     */
    String refusal(String running, List<String> jars) {
        if (jars.size() > 1) {
            return "purgatory-kafka: " + jars.size() + " purgatory-kafka jars are on the class path, " + String.join(", ", jars)
                    + ": only the first one's classes would load, with its Kafka line's signatures; keep one, the one for Kafka "
                    + (running.equals("unknown") ? "your broker runs" : lineOf(running) + " (" + jarName(lineOf(running)) + ")")
                    + ". The broker is not started.";
        }
        if (running.equals("unknown") || lineOf(running).equals(builtForLine)) {
            return null;
        }
        String line = lineOf(running);
        String instead = LINES.contains(line)
                ? "use " + jarName(line) + " instead"
                : "no purgatory-kafka jar is built for Kafka " + line + " (there is one for each of Kafka " + String.join(", ", LINES)
                        + "): remove it from the class path";
        return "purgatory-kafka: this jar (" + jarName(builtForLine) + ") is built for Kafka " + builtForLine
                + " but the broker runs Kafka " + running + ", whose purgatory and timer classes differ; " + instead
                + ". The broker is not started.";
    }

    private static ModuleInfo load() {
        Properties props = new Properties();
        try (InputStream in = ModuleInfo.class.getResourceAsStream("purgatory-kafka.properties")) {
            if (in == null) {
                throw new IllegalStateException("purgatory-kafka.properties is missing from the module's jar");
            }
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("purgatory-kafka.properties unreadable", e);
        }
        return new ModuleInfo(props.getProperty("module.version"), props.getProperty("kafka.line"), props.getProperty("kafka.version"));
    }

    /** The running Kafka's version, as its own jars state it ({@code kafka/kafka-version.properties}), or "unknown". */
    static String runningKafka() {
        ClassLoader loader = ModuleInfo.class.getClassLoader();
        try (InputStream in = loader == null ? null : loader.getResourceAsStream("kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Where each purgatory-kafka jar (or classes directory) on this class loader is, as found by its build facts. */
    static List<String> moduleJars() {
        ClassLoader loader = ModuleInfo.class.getClassLoader();
        List<String> jars = new ArrayList<>();
        try {
            Enumeration<URL> found = loader == null ? Collections.emptyEnumeration() : loader.getResources(PROPERTIES);
            while (found.hasMoreElements()) {
                String url = found.nextElement().toString();
                int bang = url.indexOf("!/");
                jars.add(bang < 0 ? url : url.substring(url.lastIndexOf('/', bang) + 1, bang));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + PROPERTIES, e);
        }
        return jars;
    }

    /** Lazy, once: the JVM runs a class's static initializer exactly once. */
    private static final class Holder {
        static final ModuleInfo INFO = load();
        static final String REFUSAL;

        static {
            String running = runningKafka();
            String refusal = INFO.refusal(running, moduleJars());
            if (refusal != null) {
                LOG.error(refusal);
            } else {
                LOG.info("purgatory-kafka {} is on: {}; built for Kafka {} ({}), running on Kafka {}",
                        INFO.moduleVersion, INFO.whatRuns(), INFO.builtForLine, INFO.builtForKafka, running);
            }
            REFUSAL = refusal;
        }
    }
}
