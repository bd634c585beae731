package io.purgatory.examples.redis;

import io.purgatory.HandOff;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads numbers and words out of arguments as Redis 7.0 does, with its error lines. Stateless.
 */
final class Arguments {

    /** A decimal number as C's {@code strtold} reads one, with no blank around it. */
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    /** Redis's "wait for ever". */
    static final Duration FOREVER = HandOff.FOREVER;

    private Arguments() {
    }

    /**
     * A blocking command's timeout: seconds, with a fraction, cut to whole milliseconds as Redis
     * does; {@link #FOREVER} for 0 (or less than a millisecond).
     *
     * @throws CommandError {@code timeout is not a float or out of range}, or {@code timeout is
     *     negative} (as Redis says for infinity and for anything over 9.2e15 seconds too: its
     *     conversion overflows to a negative number)
     */
    static Duration timeout(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.equals("inf") || lower.equals("+inf") || lower.equals("-inf") || lower.equals("infinity")
                || lower.equals("+infinity") || lower.equals("-infinity")) {
            throw new CommandError("timeout is negative");
        }
        if (!DECIMAL.matcher(text).matches()) {
            throw new CommandError("timeout is not a float or out of range");
        }
        BigDecimal millis;
        try {
            millis = new BigDecimal(text).movePointRight(3);
        } catch (NumberFormatException | ArithmeticException e) { // an exponent beyond an int
            throw new CommandError("timeout is not a float or out of range");
        }
        if (millis.signum() < 0 || millis.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new CommandError("timeout is negative");
        }
        long ms = millis.longValue(); // towards zero, as C's cast
        return ms == 0 ? FOREVER : Duration.ofMillis(ms);
    }

    /** A 64-bit integer, or Redis's {@code value is not an integer or out of range}. */
    static long integer(String text) {
        if (text.startsWith("+") || text.isEmpty() || text.length() > 20) {
            throw new CommandError("value is not an integer or out of range");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new CommandError("value is not an integer or out of range");
        }
    }

    /** A list end, LEFT or RIGHT in any case, or Redis's {@code syntax error}. */
    static Keyspace.End end(String text) {
        return switch (text.toUpperCase(Locale.ROOT)) {
            case "LEFT" -> Keyspace.End.LEFT;
            case "RIGHT" -> Keyspace.End.RIGHT;
            default -> throw CommandError.syntax();
        };
    }
}
