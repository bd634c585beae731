package io.purgatory.examples.kv;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses Consul's {@code wait} query parameter: a whole number with its unit, {@code ms}, {@code s},
 * {@code m} or {@code h} ({@code 30s}, {@code 500ms}, {@code 5m}). The unit is required, as Consul's
 * parser (Go's {@code time.ParseDuration}) requires it: a bare {@code 5} is refused rather than
 * guessed. Stateless: thread-safe.
 */
final class WaitParameter {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private WaitParameter() {
    }

    /** The wait, capped at max. @throws IllegalArgumentException if the text is not a wait */
    static Duration parse(String text, Duration max) {
        Matcher m = FORMAT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("wait must be a whole number with its unit, ms, s, m or h (30s, 500ms, 5m): " + text);
        }
        long amount = Long.parseLong(m.group(1));
        Duration wait = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofSeconds(amount);
        };
        return wait.compareTo(max) > 0 ? max : wait;
    }
}
