package io.purgatory;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core's dependency rules, checked on its compiled classes. Packages: {@code io.purgatory} uses
 * {@code io.purgatory.timer}, never the reverse; both use {@code io.purgatory.internal} (the doors
 * between them), which uses neither. Rooms inside {@code io.purgatory}: the operation state is below
 * the watch lists and the purgatory, and reaches them only through the types it owns
 * ({@link OperationHost}, {@link OperationList}); they change its fields only through its methods.
 * And the library knows nothing of Netty, Kafka or the demo.
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
        noClasses().that().resideInAnyPackage("io.purgatory", "io.purgatory.timer..", "io.purgatory.internal..")
                .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "org.apache.kafka..", "io.purgatory.demo..")
                .because("purgatory-core depends on slf4j-api alone")
                .check(CORE);
    }

    @Test
    void theInternalDoorsKnowNeitherSideTheyConnect() {
        noClasses().that().resideInAPackage("io.purgatory.internal..")
                .should().dependOnClassesThat().resideInAnyPackage("io.purgatory", "io.purgatory.timer..")
                .because("io.purgatory.internal holds the interfaces both sides implement or use, generic over their types,"
                        + " so that no arrow between the core's packages points back")
                .check(CORE);
    }

    @Test
    void theOperationStateCallsUpOnlyThroughTheTypesItOwns() {
        noClasses().that().belongToAnyOf(OperationState.class, OperationHost.class, OperationList.class, Completion.class)
                .should().dependOnClassesThat().belongToAnyOf(DelayedOperationPurgatory.class, WatchList.class,
                        PositionIndex.class, PositionWatch.class, Waiters.class, PurgatoryMetrics.class, DelayedOperation.class)
                .because("the operation state is the lowest room of io.purgatory: the purgatory and its watch lists are"
                        + " above it and reach down, it reaches up through OperationHost and OperationList only")
                .check(CORE);
    }

    @Test
    void onlyTheOperationStateWritesItsFields() {
        noClasses().that().doNotBelongToAnyOf(OperationState.class)
                .should().setFieldWhere(DescribedPredicate.describe("a field of OperationState",
                        (JavaFieldAccess access) -> access.getTargetOwner().isEquivalentTo(OperationState.class)))
                .because("the purgatory and the watch lists change an operation's state through its methods")
                .check(CORE);
    }
}
