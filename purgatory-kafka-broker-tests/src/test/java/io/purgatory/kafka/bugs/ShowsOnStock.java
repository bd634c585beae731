package io.purgatory.kafka.bugs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The Kafka lines ({@code "4.0"}) on whose stock classes a bug reproduction fails, because the bug is there. The
 * harness ({@code KafkaBugsTest}) runs every reproduction on each line's stock Kafka and on the module, and
 * requires exactly this: failing on stock on these lines, passing on stock on the others, passing on the module
 * everywhere.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ShowsOnStock {

    /** The lines, as {@code "4.0"}; empty if no stock line of 4.x shows the bug. */
    String[] value();

    /** The Kafka issue the test reproduces, {@code "KAFKA-19312"}. */
    String issue();
}
