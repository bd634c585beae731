/**
 * <strong>Not for applications.</strong> What purgatory's own packages and modules share, and
 * nothing else: the base classes every operation and every timer task inherit
 * ({@link io.purgatory.internal.OperationState}, {@link io.purgatory.internal.TimerNode}), the
 * accessor classes through which the purgatory and the timer work on them
 * ({@link io.purgatory.internal.OperationStates}, {@link io.purgatory.internal.TimerNodes}), and the
 * doors between the packages: the timer's control of the nodes it links, and the operation state's
 * hooks and lock for {@code purgatory-kafka}'s bridge. Its types may change or vanish in any
 * release, with no deprecation, and nothing here is covered by the library's compatibility promise
 * or its javadoc.
 *
 * <p>The base classes are public only because public classes extend them
 * ({@code io.purgatory.DelayedOperation}, {@code io.purgatory.timer.TimerTask}, and
 * purgatory-kafka's bridge, in a package of its own); they have no public or protected member but a
 * constructor, so a subclass can neither call nor override anything of them. Their fields are
 * package-private; the accessor classes, outside their hierarchies, are static methods that the JIT
 * inlines, so the indirection costs nothing at run time.
 *
 * <p>The doors follow the JDK's "shared secrets": a package that owns some package-private
 * machinery implements one of these interfaces and registers it here once, from a static
 * initializer; the package that needs the machinery takes it from here. The interfaces are generic
 * over the types they handle, so that this package depends on the JDK alone and every arrow between
 * the core's packages keeps pointing one way ({@code io.purgatory} to {@code io.purgatory.timer};
 * both to this package; this package to neither).
 *
 * <p>Null-marked: no parameter, return value or field is null unless its type says {@code @Nullable}.
 */
@NullMarked
package io.purgatory.internal;

import org.jspecify.annotations.NullMarked;
