package io.purgatory.demo.broker;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/** Awaitility set up for asynchronous outcomes that come in milliseconds: checked at once, then every 2 ms, for 20 s at most. */
public final class Waits {
    private Waits() {
    }

    public static ConditionFactory soon() {
        return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(20));
    }
}
