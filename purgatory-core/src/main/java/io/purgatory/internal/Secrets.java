package io.purgatory.internal;

import org.jspecify.annotations.Nullable;

/**
 * Where the core's packages and purgatory-kafka register and find each other's controls (see the
 * package comment). Each is registered once, from the owning class's static initializer, before any
 * object that needs it exists; so a reader that holds such an object sees it. Not for applications.
 *
 * <p>Thread-safe: the fields are volatile and written once.
 */
public final class Secrets {

    private static volatile @Nullable NodeControl<?, ?> nodeControl;
    private static volatile @Nullable NodeOwner<?, ?> nodeOwner;
    private static volatile @Nullable StateControl<?, ?, ?> stateControl;
    private static volatile @Nullable ForeignOperations<?, ?> foreignOperations;

    private Secrets() {
    }

    /** By {@code io.purgatory.timer}: the control of foreign nodes. */
    public static synchronized void registerNodeControl(NodeControl<?, ?> control) {
        nodeControl = once(nodeControl, control);
    }

    /** By {@code io.purgatory}: the owner of the foreign nodes, its operations. */
    public static synchronized void registerNodeOwner(NodeOwner<?, ?> owner) {
        nodeOwner = once(nodeOwner, owner);
    }

    /** By {@code io.purgatory}: the operation state's machinery for purgatory-kafka's bridge. */
    public static synchronized void registerStateControl(StateControl<?, ?, ?> control) {
        stateControl = once(stateControl, control);
    }

    /** By purgatory-kafka's bridge: the hooks of its operation states. */
    public static synchronized void registerForeignOperations(ForeignOperations<?, ?> operations) {
        foreignOperations = once(foreignOperations, operations);
    }

    /** The timer's control of foreign nodes; the timer package registers it when it is loaded. */
    @SuppressWarnings("unchecked")
    public static <N, T> NodeControl<N, T> nodeControl() {
        return (NodeControl<N, T>) required(nodeControl, "node control");
    }

    /** The owner of foreign nodes, or null if no operation state class was loaded. */
    @SuppressWarnings("unchecked")
    public static <N, T> @Nullable NodeOwner<N, T> nodeOwner() {
        return (NodeOwner<N, T>) nodeOwner;
    }

    /** The operation state's machinery; {@code io.purgatory} registers it when the state class is loaded. */
    @SuppressWarnings("unchecked")
    public static <S, P, T> StateControl<S, P, T> stateControl() {
        return (StateControl<S, P, T>) required(stateControl, "state control");
    }

    /** The hooks of foreign operation states, or null if no bridge was loaded. */
    @SuppressWarnings("unchecked")
    public static <S, T> @Nullable ForeignOperations<S, T> foreignOperations() {
        return (ForeignOperations<S, T>) foreignOperations;
    }

    private static <C> C once(@Nullable C current, C next) {
        if (current != null) {
            throw new IllegalStateException("already registered: " + current);
        }
        return next;
    }

    private static <C> C required(@Nullable C control, String what) {
        if (control == null) {
            throw new IllegalStateException("no " + what + " registered: its package was not loaded");
        }
        return control;
    }
}
