package io.purgatory;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TimerNodes;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core's dependency rules, checked on its compiled classes. Packages: {@code io.purgatory} uses
 * {@code io.purgatory.timer}, never the reverse; both use {@code io.purgatory.internal} (the doors
 * between them, and the base classes of operations and tasks), which uses neither. Rooms inside
 * {@code io.purgatory}: the operation ({@link Operations}, behind {@link DelayedOperation}) is below
 * the watch lists and the purgatory, and reaches them only through the types it owns
 * ({@link OperationHost}, {@link OperationList}). The fields of the internal base classes are written
 * by those classes and their accessor classes only. And the library knows nothing of Netty, Kafka or
 * the demo.
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
        noClasses().that().belongToAnyOf(Operations.class, DelayedOperation.class, OperationHost.class, OperationList.class, Completion.class)
                .should().dependOnClassesThat().belongToAnyOf(DelayedOperationPurgatory.class, WatchList.class,
                        PositionIndex.class, PositionWatch.class, Waiters.class, PurgatoryMetrics.class, OperationDoors.class)
                .because("the operation is the lowest room of io.purgatory: the purgatory and its watch lists are"
                        + " above it and reach down, it reaches up through OperationHost and OperationList only")
                .check(CORE);
    }

    @Test
    void onlyTheOperationStateAndItsAccessorsWriteItsFields() {
        noClasses().that().doNotBelongToAnyOf(OperationState.class, OperationStates.class)
                .should().setFieldWhere(DescribedPredicate.describe("a field of OperationState",
                        (JavaFieldAccess access) -> access.getTargetOwner().isEquivalentTo(OperationState.class)))
                .because("the purgatory and the watch lists change an operation's state through OperationStates")
                .check(CORE);
    }

    @Test
    void onlyTheTimerNodeAndItsAccessorsWriteItsFields() {
        noClasses().that().doNotBelongToAnyOf(TimerNode.class, TimerNodes.class)
                .should().setFieldWhere(DescribedPredicate.describe("a field of TimerNode",
                        (JavaFieldAccess access) -> access.getTargetOwner().isEquivalentTo(TimerNode.class)))
                .because("the timer changes a node through TimerNodes")
                .check(CORE);
    }
}
