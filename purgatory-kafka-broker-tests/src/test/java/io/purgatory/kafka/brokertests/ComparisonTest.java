package io.purgatory.kafka.brokertests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a test's outcomes on stock Kafka and on the module, in two pairs of runs, are judged. */
class ComparisonTest {

    private static final String RACY = "kafka.ATest#racesWithItself()";

    @TempDir
    Path dir;

    @Test
    void aTestThatFailsOnlyOnTheModuleTwiceIsAModuleOnlyFailureAndOneThatDisagreesOnceIsFlaky() throws IOException {
        TestOutcomes stock = report("stock", "passes()", null, "failsOnModule()", null, "disagreesOnce()", null);
        TestOutcomes module = report("module", "passes()", null, "failsOnModule()", "boom", "disagreesOnce()", "boom");
        TestOutcomes stockRerun = report("stock-rerun", "failsOnModule()", null, "disagreesOnce()", null);
        TestOutcomes moduleRerun = report("module-rerun", "failsOnModule()", "boom", "disagreesOnce()", null);

        Comparison c = Comparison.of(stock, module, stockRerun, moduleRerun, Set.of());

        assertEquals(Set.of("kafka.ATest#failsOnModule()"), c.moduleOnly.keySet());
        assertEquals(Set.of("kafka.ATest#disagreesOnce()"), c.flaky.keySet());
        assertEquals(Set.of(), c.racy.keySet());
    }

    @Test
    void aListedTestRacingWithItselfIsReportedNotJudged() throws IOException {
        TestOutcomes stock = report("stock", "racesWithItself()", null);
        TestOutcomes module = report("module", "racesWithItself()", "thread should be gone");
        TestOutcomes stockRerun = report("stock-rerun", "racesWithItself()", null);
        TestOutcomes moduleRerun = report("module-rerun", "racesWithItself()", "thread should be gone");

        Comparison c = Comparison.of(stock, module, stockRerun, moduleRerun, Set.of(RACY));

        assertEquals(Set.of(), c.moduleOnly.keySet());
        assertEquals(Set.of(RACY), c.racy.keySet());
        assertEquals("first runs: stock passed, module failed (thread should be gone); "
                + "rerun: stock passed, module failed (thread should be gone)", c.racy.get(RACY));
        assertEquals(Set.of(RACY), Comparison.of(stock, module, stockRerun, moduleRerun, Set.of()).moduleOnly.keySet(),
                "the same outcomes, unlisted");
    }

    @Test
    void theListOfRacingTestsInTheModuleNamesTestIdsAsTheSummaryPrintsThem() throws IOException {
        Set<String> listed = KafkaLine.readNames(Path.of(KafkaBrokerTestsOnTheModuleTest.RACES_FILE));
        assertFalse(listed.isEmpty());
        for (String id : listed) {
            assertTrue(id.matches("[\\w.$]+#\\w+\\(.*\\)"), "not a class#method() test id: " + id);
        }
    }

    /** A JUnit XML report of tests in {@code kafka.ATest}: pairs of name and failure message (null: passed). */
    private TestOutcomes report(String name, String... namesAndFailures) throws IOException {
        StringBuilder xml = new StringBuilder("<testsuite>");
        for (int i = 0; i < namesAndFailures.length; i += 2) {
            xml.append("<testcase classname=\"kafka.ATest\" name=\"").append(namesAndFailures[i]).append("\">");
            if (namesAndFailures[i + 1] != null) {
                xml.append("<failure message=\"").append(namesAndFailures[i + 1]).append("\"/>");
            }
            xml.append("</testcase>");
        }
        Path file = dir.resolve(name + ".xml");
        Files.writeString(file, xml.append("</testsuite>").toString());
        return TestOutcomes.read(file);
    }
}
