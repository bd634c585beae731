package io.purgatory.kafka.brokertests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.purgatory.kafka.bugs.ShowsOnStock;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reproductions of Kafka's purgatory bugs ({@code io.purgatory.kafka.bugs}), run for each Kafka line on stock
 * Kafka and on the line's module jar, each side in a JVM of its own. Each reproduction must fail on stock exactly
 * on the lines its {@link ShowsOnStock} names (the bug is there), pass on stock on the others, and pass on the
 * module everywhere. The outcome per line is written to {@code target/kafka-bugs/<line>/summary.txt}.
 */
@Tag("integration")
class KafkaBugsTest {

    static List<KafkaLine> lines() throws IOException {
        return KafkaBrokerTestsOnTheModuleTest.lines("purgatory.kafka.bugs.lines");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lines")
    void kafkasPurgatoryBugsShowOnTheStockLinesTheyAreOnAndNotOnTheModule(KafkaLine line) throws Exception {
        Path testClasses = location(ShowsOnStock.class);
        List<String> reproductions = reproductions(testClasses);
        assertFalse(reproductions.isEmpty(), "no reproductions under " + testClasses);
        List<Path> ours = List.of(testClasses, location(org.awaitility.Awaitility.class),
                location(org.hamcrest.Matcher.class));
        List<Path> stockPath = new ArrayList<>(ours);
        stockPath.addAll(line.classPath());
        List<Path> modulePath = new ArrayList<>(List.of(line.moduleJar()));
        modulePath.addAll(stockPath);
        Path dir = Path.of("target/kafka-bugs", line.line());
        TestOutcomes stock = new KafkaTestRun(stockPath, reproductions, dir.resolve("stock")).run().outcomes();
        TestOutcomes module = new KafkaTestRun(modulePath, reproductions, dir.resolve("module")).run().outcomes();

        List<String> report = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        for (String reproduction : reproductions) {
            ShowsOnStock shows = Class.forName(reproduction, false, getClass().getClassLoader())
                    .getAnnotation(ShowsOnStock.class);
            boolean expectedOnStock = !Arrays.asList(shows.value()).contains(line.line());
            String onStock = outcomeOf(stock, reproduction);
            String onModule = outcomeOf(module, reproduction);
            report.add(line + " " + shows.issue() + " (" + simpleName(reproduction) + "): stock " + onStock
                    + (expectedOnStock ? "" : " (shows the bug)") + ", module " + onModule);
            if (!onStock.equals(expectedOnStock ? "passed" : "failed")) {
                unexpected.add(reproduction + " on stock " + line + ": " + onStock + ", expected "
                        + (expectedOnStock ? "passed" : "failed"));
            }
            if (!onModule.equals("passed")) {
                unexpected.add(reproduction + " on the module on " + line + ": " + onModule);
            }
        }
        String text = String.join(System.lineSeparator(), report);
        Files.writeString(dir.resolve("summary.txt"), text + System.lineSeparator());
        System.out.println(text);
        assertEquals(List.of(), unexpected, text);
    }

    /** "passed" if every test of the class passed, "failed (...)" with the first failure, "not run" if none ran. */
    private static String outcomeOf(TestOutcomes outcomes, String testClass) {
        List<TestOutcomes.Outcome> ofClass = outcomes.byTest().entrySet().stream()
                .filter(e -> TestOutcomes.testClass(e.getKey()).equals(testClass)).map(java.util.Map.Entry::getValue)
                .toList();
        if (ofClass.isEmpty()) {
            return "not run";
        }
        return ofClass.stream().filter(o -> !o.passed()).findFirst()
                .map(o -> "failed").orElse("passed");
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static List<String> reproductions(Path testClasses) throws IOException {
        Path bugs = testClasses.resolve("io/purgatory/kafka/bugs");
        try (Stream<Path> files = Files.list(bugs)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith("Test.class") && !n.contains("$"))
                    .map(n -> "io.purgatory.kafka.bugs." + n.substring(0, n.length() - ".class".length()))
                    .sorted().toList();
        }
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
