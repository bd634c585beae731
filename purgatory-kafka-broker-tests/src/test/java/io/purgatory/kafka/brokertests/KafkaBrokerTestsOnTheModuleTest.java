package io.purgatory.kafka.brokertests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.kafka.brokertests.KafkaTestRun.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka's own tests of the broker classes that use the purgatory and timer, run for each Kafka line on stock
 * Kafka and with the line's module jar first on the class path, each side in a JVM of its own. The build fails
 * on a test that passes on stock and fails on the module (twice: a disagreeing class is rerun on both sides); a
 * test that fails on stock too is reported, not hidden, and so is a disagreement of a test that {@value #RACES_FILE}
 * names as racing with itself in Kafka's own code. Each run's class-load log shows that the module's run
 * loaded the module's classes (and only them, of the classes the module defines) and the stock run Kafka's. A test
 * class that does not link against the line's broker classes (4.3.1's tests on 4.4.0) is not run, and the build
 * fails unless exactly those classes are the ones its {@code lines/<version>/unlinked-test-classes.txt} names.
 * Each line's account is written to {@code target/broker-tests/<line>/summary.txt}.
 */
@Tag("integration")
class KafkaBrokerTestsOnTheModuleTest {

    /** The test classes of Kafka's broker classes that use the purgatory or the timer, by simple name. */
    static final Set<String> TEST_CLASSES = Set.of(
            "ReplicaManagerTest", "ReplicaManagerQuotasTest", "DelayedProduceTest", "DelayedFetchTest",
            "DelayedShareFetchTest", "SharePartitionManagerTest", "DelayedFutureTest", "DelayedRemoteFetchTest",
            "DelayedRemoteListOffsetsTest", "CoordinatorTimerImplTest", "CoordinatorRuntimeTest");

    /**
     * Kafka's tests known to race with themselves, whose disagreements are reported and not judged; in the module's
     * directory, read with {@link KafkaLine#readNames}.
     */
    static final String RACES_FILE = "kafka-test-races.txt";

    private static final String PURGATORY = "org.apache.kafka.server.purgatory.DelayedOperationPurgatory";
    private static final String TIMER = "org.apache.kafka.server.util.timer.SystemTimer";

    static List<KafkaLine> lines() throws IOException {
        return lines("purgatory.kafka.brokerTests.lines");
    }

    /** The lines named by a system property ({@code line=version,...}), with their class paths and jars. */
    static List<KafkaLine> lines(String property) throws IOException {
        return KafkaLine.parse(System.getProperty(property, ""),
                Path.of(System.getProperty("purgatory.kafka.brokerTests.linesDir", "lines")),
                System.getProperty("purgatory.kafka.brokerTests.moduleJar", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lines")
    void kafkasBrokerTestsPassOnTheModuleWhereTheyPassOnStockKafka(KafkaLine line) throws Exception {
        List<String> candidates = line.testClassesNamed(TEST_CLASSES);
        assertFalse(candidates.isEmpty(), "no broker test classes in " + line + "'s test jars");
        Path dir = Path.of("target/broker-tests", line.line());
        TestClassLinkage linkage = TestClassLinkage.probe(line.classPath(), candidates, dir.resolve("linkage.txt"));
        assertEquals(line.unlinkedTestClasses(), linkage.unlinked().keySet(), "the test classes that do not link against "
                + line + "'s broker classes (" + KafkaLine.UNLINKED_FILE + " of " + line.version() + "): " + linkage.unlinked());
        List<String> testClasses = candidates.stream().filter(c -> !linkage.unlinked().containsKey(c)).toList();

        RunResult stock = new KafkaTestRun(line.classPath(), testClasses, dir.resolve("stock")).run();
        RunResult module = new KafkaTestRun(line.moduleClassPath(), testClasses, dir.resolve("module")).run();
        assertClassesUnderTest(line, stock, module);

        List<String> rerun = List.copyOf(Comparison.classesToRerun(stock.outcomes(), module.outcomes()));
        TestOutcomes stockRerun = stock.outcomes();
        TestOutcomes moduleRerun = module.outcomes();
        if (!rerun.isEmpty()) {
            stockRerun = new KafkaTestRun(line.classPath(), rerun, dir.resolve("stock-rerun")).run().outcomes();
            moduleRerun = new KafkaTestRun(line.moduleClassPath(), rerun, dir.resolve("module-rerun")).run().outcomes();
        }
        Comparison comparison = Comparison.of(stock.outcomes(), module.outcomes(), stockRerun, moduleRerun, KafkaLine.readNames(Path.of(RACES_FILE)));
        String report = comparison.report(line + ", Kafka's broker tests of " + line.version()
                + " (classes " + testClasses + ")" + (rerun.isEmpty() ? "" : ", reran " + rerun), testClasses)
                + notRun(linkage);
        Files.writeString(dir.resolve("summary.txt"), report + System.lineSeparator());
        System.out.println(report);

        assertTrue(comparison.moduleOnly.isEmpty(), "module-only failures on " + line + ":\n" + report);
        assertTrue(comparison.missingOnOneSide.isEmpty(), "tests run on one side only on " + line + ":\n" + report);
        assertEquals(comparison.stockTests, comparison.moduleTests, report);
    }

    /** The report's lines for the classes not run because they do not link, with the error; none if all link. */
    private static String notRun(TestClassLinkage linkage) {
        StringBuilder text = new StringBuilder();
        linkage.unlinked().forEach((testClass, error) -> text.append(System.lineSeparator())
                .append("  not run, does not link against the line's broker classes: ").append(testClass).append(" -- ").append(error));
        return text.toString();
    }

    /**
     * The module's run loaded the purgatory and the timer from the module's jar, and every class the module
     * defines that the run loaded came from there; the stock run loaded them from Kafka's kafka-server-common.
     */
    private static void assertClassesUnderTest(KafkaLine line, RunResult stock, RunResult module) throws IOException {
        String moduleJar = line.moduleJar().getFileName().toString();
        for (String name : List.of(PURGATORY, TIMER)) {
            assertEquals(moduleJar, module.classSources().jarOf(name), name + " in the module's run on " + line);
            String stockJar = stock.classSources().jarOf(name);
            assertTrue(stockJar != null && stockJar.startsWith("kafka-server-common-" + line.version()),
                    name + " in the stock run on " + line + " came from " + stockJar);
        }
        List<String> wrong = new ArrayList<>();
        for (String name : line.moduleKafkaClasses()) {
            String jar = module.classSources().jarOf(name);
            if (jar != null && !jar.equals(moduleJar)) {
                wrong.add(name + " from " + jar);
            }
            String stockJar = stock.classSources().jarOf(name);
            if (stockJar != null && stockJar.equals(moduleJar)) {
                wrong.add(name + " from the module's jar in the stock run");
            }
        }
        assertEquals(List.of(), wrong, "classes not from the jar the run is for, on " + line);
    }
}
