/**
 * <strong>Not for applications.</strong> The doors between purgatory's own packages and modules: the
 * timer's control of the nodes it links, and the operation state's hooks and lock for
 * {@code purgatory-kafka}'s bridge. Its types may change or vanish in any release, with no
 * deprecation, and nothing here is covered by the library's compatibility promise or its javadoc.
 *
 * <p>The pattern is the JDK's "shared secrets": a package that owns some package-private machinery
 * implements one of these interfaces and registers it here once, from a static initializer; the
 * package that needs the machinery takes it from here. The interfaces are generic over the types
 * they handle, so that this package depends on the JDK alone and every arrow between the core's
 * packages keeps pointing one way ({@code io.purgatory} to {@code io.purgatory.timer}; both to this
 * package; this package to neither).
 *
 * <p>Null-marked: no parameter, return value or field is null unless its type says {@code @Nullable}.
 */
@NullMarked
package io.purgatory.internal;

import org.jspecify.annotations.NullMarked;
