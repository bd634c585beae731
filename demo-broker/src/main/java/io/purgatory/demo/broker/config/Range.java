package io.purgatory.demo.broker.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Field;
import picocli.CommandLine.Option;

/**
 * The values a numeric {@link Option} field accepts, declared next to the option:
 * {@link Checks#check} refuses a value outside with a message naming the option and the value.
 * Either bound may be left open.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Range {
    /** The smallest value accepted. */
    long min() default Long.MIN_VALUE;

    /** The largest value accepted. */
    long max() default Long.MAX_VALUE;

    /** Checks the ranges of an options object. Stateless; thread-safe. */
    final class Checks {
        private Checks() {
        }

        /**
         * Checks every field of {@code options} (its own class's, not its mixins') that has both an
         * {@link Option} and a {@link Range}.
         *
         * @throws IllegalArgumentException naming the first option out of range, e.g. {@code --port must be 0..65535, was 70000}
         */
        public static void check(Object options) {
            for (Field field : options.getClass().getDeclaredFields()) {
                Range range = field.getAnnotation(Range.class);
                Option option = field.getAnnotation(Option.class);
                if (range == null || option == null) {
                    continue;
                }
                long value = value(field, options);
                if (value < range.min() || value > range.max()) {
                    throw new IllegalArgumentException(option.names()[0] + " must be " + describe(range) + ", was " + value);
                }
            }
        }

        /** {@code 0..65535}, {@code >= 1} or {@code <= 10}. */
        private static String describe(Range range) {
            if (range.max() == Long.MAX_VALUE) {
                return ">= " + range.min();
            }
            return range.min() == Long.MIN_VALUE ? "<= " + range.max() : range.min() + ".." + range.max();
        }

        private static long value(Field field, Object options) {
            try {
                field.setAccessible(true);
                return ((Number) field.get(options)).longValue();
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + field, e);
            }
        }
    }
}
