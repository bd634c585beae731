package io.purgatory.timer;

import java.time.Duration;
import java.util.Objects;

/**
 * Converts the {@link Duration} forms of this package's methods to their milliseconds forms.
 * Stateless.
 */
final class Delays {

    private Delays() {
    }

    /**
     * {@code duration} in whole milliseconds (a fraction of one is dropped), {@code Long.MAX_VALUE}
     * if it is longer. The milliseconds form it is passed to checks its sign, naming the argument.
     *
     * @throws NullPointerException if duration is null, naming {@code what}
     */
    static long toMs(Duration duration, String what) {
        Objects.requireNonNull(duration, what);
        try {
            return duration.toMillis();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
