/**
 * The purgatory: {@link io.purgatory.DelayedOperation}, {@link io.purgatory.DelayedOperationPurgatory}
 * and the {@link io.purgatory.Waiters} futures on it.
 *
 * <p>Null-marked: no parameter, return value or field is null unless its type says {@code @Nullable};
 * NullAway checks it when the core is built.
 */
@NullMarked
package io.purgatory;

import org.jspecify.annotations.NullMarked;
