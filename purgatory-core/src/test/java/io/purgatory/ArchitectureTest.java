package io.purgatory;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core's dependency rules, checked on its compiled classes: the timer knows nothing of
 * operations, and the library knows nothing of Netty, Kafka or the demo.
 */
class ArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.purgatory");

    @Test
    void theTimerKnowsNothingOfOperations() {
        noClasses().that().resideInAPackage("io.purgatory.timer..")
                .should().dependOnClassesThat().resideInAPackage("io.purgatory")
                .because("io.purgatory.timer is a timing wheel for any task; operations are built on it, not the other way round")
                .check(CORE);
    }

    @Test
    void theCoreKnowsNothingOfNettyKafkaOrTheDemo() {
        noClasses().that().resideInAnyPackage("io.purgatory", "io.purgatory.timer..")
                .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "org.apache.kafka..", "io.purgatory.demo..")
                .because("purgatory-core depends on slf4j-api alone")
                .check(CORE);
    }
}
