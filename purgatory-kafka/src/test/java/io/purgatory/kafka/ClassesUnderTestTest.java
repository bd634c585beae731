package io.purgatory.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Guards the surefire runs of Kafka's own tests against a class-path slip. It lists the top-level
 * classes the module compiles into Kafka's packages (from {@code purgatory.kafka.moduleClasses}, the
 * module's output directory). In the module's run ({@code purgatory.kafka.classesUnderTest=module})
 * each must be loaded from there, not from Kafka's jar; in the run on stock Kafka ({@code =stock}) each
 * that Kafka has must come from Kafka's jar. Kafka's tests in the same JVM then test the classes this
 * test saw.
 */
class ClassesUnderTestTest {

    @Test
    void kafkasTestsRunOnTheClassesTheRunIsFor() throws Exception {
        String run = System.getProperty("purgatory.kafka.classesUnderTest", "module");
        Path moduleClasses = Path.of(System.getProperty("purgatory.kafka.moduleClasses", "target/classes")).toAbsolutePath();
        List<String> names = kafkaPackageClasses(moduleClasses);
        assertFalse(names.isEmpty(), "no module classes found under " + moduleClasses);
        for (String name : names) {
            Class<?> loaded;
            try {
                loaded = Class.forName(name);
            } catch (ClassNotFoundException e) {
                assertEquals("stock", run, name + " is the module's but is not on the class path");
                continue; // a helper of the module's that Kafka does not have
            }
            Path from = Path.of(loaded.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (run.equals("stock")) {
                assertTrue(from.getFileName().toString().startsWith("kafka-server-common-"),
                        name + " should come from Kafka's jar in the stock run, but comes from " + from);
            } else {
                assertEquals("module", run, "unknown purgatory.kafka.classesUnderTest");
                assertEquals(moduleClasses, from, name + " should be the module's");
            }
        }
    }

    private static List<String> kafkaPackageClasses(Path root) throws IOException {
        Path kafka = root.resolve("org/apache/kafka");
        try (Stream<Path> files = Files.walk(kafka)) {
            return files.map(root::relativize).map(Path::toString)
                    .filter(f -> f.endsWith(".class") && !f.contains("$"))
                    .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.').replace('\\', '.'))
                    .sorted().toList();
        }
    }
}
