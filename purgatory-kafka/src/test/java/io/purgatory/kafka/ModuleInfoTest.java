package io.purgatory.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The module refuses to run on a Kafka line it was not built for, and beside a second purgatory-kafka
 * jar: what it says, for every pair of neighbouring lines (the running version given, as the broker's
 * {@code AppInfoParser} would report it), and that the jar under test runs on its own Kafka.
 */
class ModuleInfoTest {

    private static final List<String> PATCH_OF_LINE = List.of("3.9.1", "4.0.2", "4.1.2", "4.2.1", "4.3.1", "4.4.0");

    /** Every neighbouring pair, both ways: a jar built for one line, a broker of the other. */
    static Stream<Arguments> neighbouringLines() {
        return IntStream.range(0, ModuleInfo.LINES.size() - 1).boxed().flatMap(i -> Stream.of(
                Arguments.of(ModuleInfo.LINES.get(i), PATCH_OF_LINE.get(i + 1)),
                Arguments.of(ModuleInfo.LINES.get(i + 1), PATCH_OF_LINE.get(i))));
    }

    @ParameterizedTest(name = "a jar for Kafka {0} on Kafka {1}")
    @MethodSource("neighbouringLines")
    void aJarOnANeighbouringLineIsRefusedNamingTheJarToUse(String builtFor, String running) {
        ModuleInfo jar = new ModuleInfo("1.2.3", builtFor, builtFor + ".0");
        String refusal = jar.refusal(running, List.of("purgatory-kafka-" + builtFor + "-1.2.3.jar"));
        String runningLine = running.substring(0, 3);
        assertEquals("purgatory-kafka: this jar (purgatory-kafka-" + builtFor + "-1.2.3.jar) is built for Kafka " + builtFor
                + " but the broker runs Kafka " + running + ", whose purgatory and timer classes differ; use purgatory-kafka-"
                + runningLine + "-1.2.3.jar instead. The broker is not started.", refusal);
    }

    @Test
    void aPatchReleaseOfTheSameLineRuns() {
        ModuleInfo jar = new ModuleInfo("1.2.3", "4.1", "4.1.2");
        assertNull(jar.refusal("4.1.0", List.of("a.jar")));
        assertNull(jar.refusal("4.1.3-SNAPSHOT", List.of("a.jar")));
        assertNull(jar.refusal("unknown", List.of("a.jar")), "a Kafka that does not say its version is let through");
    }

    @Test
    void aLineWithoutAJarIsRefusedWithoutNamingOne() {
        String refusal = new ModuleInfo("1.2.3", "4.4", "4.4.0").refusal("4.5.0", List.of("a.jar"));
        assertTrue(refusal.contains("runs Kafka 4.5.0") && refusal.contains("no purgatory-kafka jar is built for Kafka 4.5")
                && refusal.contains("remove it from the class path"), refusal);
        String older = new ModuleInfo("1.2.3", "3.9", "3.9.1").refusal("3.8.1", List.of("a.jar"));
        assertTrue(older.contains("no purgatory-kafka jar is built for Kafka 3.8 (there is one for each of Kafka 3.9, 4.0, 4.1"), older);
    }

    @Test
    void theJarOfALineWithAScalaPurgatoryProvidesTheTimerAlone() {
        ModuleInfo timerOnly = new ModuleInfo("1.2.3", "3.9", "3.9.1");
        assertEquals(ModuleInfo.TIMER_CLASSES, timerOnly.replacedClasses());
        assertTrue(timerOnly.whatRuns().startsWith("Kafka's timer (SystemTimer"), timerOnly.whatRuns());
        ModuleInfo both = new ModuleInfo("1.2.3", "4.0", "4.0.2");
        assertTrue(both.replacedClasses().containsAll(ModuleInfo.PURGATORY_CLASSES) && both.replacedClasses().containsAll(ModuleInfo.TIMER_CLASSES),
                both.replacedClasses().toString());
    }

    @Test
    void twoModuleJarsAreRefusedNamingBoth() {
        String refusal = new ModuleInfo("1.2.3", "4.1", "4.1.2")
                .refusal("4.1.2", List.of("purgatory-kafka-4.1-1.2.3.jar", "purgatory-kafka-4.0-1.2.3.jar"));
        assertEquals("purgatory-kafka: 2 purgatory-kafka jars are on the class path, purgatory-kafka-4.1-1.2.3.jar, "
                + "purgatory-kafka-4.0-1.2.3.jar: only the first one's classes would load, with its Kafka line's signatures; "
                + "keep one, the one for Kafka 4.1 (purgatory-kafka-4.1-1.2.3.jar). The broker is not started.", refusal);
    }

    @Test
    void theJarUnderTestRunsOnItsOwnKafka() {
        ModuleInfo.announce(); // throws if it refused
        assertEquals(ModuleInfo.lineOf(ModuleInfo.runningKafka()), ModuleInfo.get().builtForLine());
        assertEquals(1, ModuleInfo.moduleJars().size(), ModuleInfo.moduleJars().toString());
        assertTrue(ModuleInfo.LINES.contains(ModuleInfo.get().builtForLine()));
    }

    @Test
    void aLineIsMajorDotMinor() {
        assertEquals("4.0", ModuleInfo.lineOf("4.0.2"));
        assertEquals("4.10", ModuleInfo.lineOf("4.10.0-SNAPSHOT"));
        assertEquals("4.1", ModuleInfo.lineOf("4.1"));
        assertEquals("unknown", ModuleInfo.lineOf("unknown"));
    }
}
