package io.purgatory.benchmarks.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SoakTest {

    @Test
    void aSmallSoakPassesThroughEveryKindOfRound() {
        // 4 rounds: racing and draining close, each with purgeInterval 1000 and 0
        int exitCode = new CommandLine(new Soak()).execute("--operations", "20000", "--round-size", "5000");

        assertEquals(0, exitCode);
    }

    @Test
    void anOperationAnsweredTwiceOrNeverIsAViolation() {
        SoakTally tally = new SoakTally();
        SoakOperation twice = new SoakOperation(1000, new AtomicLong(), SoakOperation.NEVER);
        twice.onComplete();
        twice.onComplete();
        twice.onExpiration();
        SoakOperation never = new SoakOperation(1000, new AtomicLong(), SoakOperation.NEVER);

        tally.check(0, 0, twice);
        tally.check(0, 1, never);

        assertFalse(tally.passed());
        assertEquals(2, tally.violations().size());
        assertTrue(tally.verdict(1).startsWith("soak FAIL: 2 operations"), tally.verdict(1));
    }

    @Test
    void badOptionsAreAUsageError() {
        assertEquals(2, new CommandLine(new Soak()).execute("--threads", "0"));
    }
}
