/**
 * The hierarchical timing wheel: {@link io.purgatory.timer.SystemTimer}, its tasks and callbacks, and
 * {@link io.purgatory.timer.MockTimer} for tests.
 *
 * <p>Null-marked: no parameter, return value or field is null unless its type says {@code @Nullable};
 * NullAway checks it when the core is built.
 */
@NullMarked
package io.purgatory.timer;

import org.jspecify.annotations.NullMarked;
