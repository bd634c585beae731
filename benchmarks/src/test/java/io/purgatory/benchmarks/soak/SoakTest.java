package io.purgatory.benchmarks.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SoakTest {

    private static final int THREADS = 4;
    private static final String KNOWN_RACE_WITH_CLOSE = "tryCompleteElseWatch threw IllegalStateException";

    @Test
    void aSmallSoakAnswersEveryOperationExactlyOnceThroughEveryKindOfRound() {
        // 4 rounds: racing and draining close, each with purgeInterval 1000 and 0
        SoakTally tally = Soak.run(new SoakConfig(20_000, THREADS, 5_000, 16, 20, 1));

        assertEquals(20_000, tally.offered(), tally.verdict(0));
        assertEquals(20_000, tally.answered(), tally.verdict(0));
        assertEquals(0, tally.lost(), tally.verdict(0));
        assertEquals(0, tally.answeredTwice(), tally.verdict(0));
        assertEquals(0, tally.beforeCloseViolations(), tally.verdict(0));
        assertEquals(0, tally.numDelayedAfterClose(), tally.verdict(0));
        assertEquals(0, tally.maxWatchedAfterClose(), tally.verdict(0));
        assertTrue(tally.thrown().isEmpty(), tally.verdict(0));
        assertTrue(tally.passed(), tally.verdict(0));
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
    void anExceptionFromThePurgatoryFailsTheSoak() {
        SoakTally tally = new SoakTally();

        tally.threw("tryCompleteElseWatch", new IllegalStateException("timer t is closed"), "round 0");

        assertFalse(tally.passed());
        assertEquals(1L, tally.thrown().get(KNOWN_RACE_WITH_CLOSE));
    }

    @Test
    void watchesLeftAfterCloseFailTheSoak() {
        SoakTally tally = new SoakTally();

        tally.afterClose(0, 0, 1);

        assertFalse(tally.passed());
        assertEquals(1, tally.maxWatchedAfterClose());
    }

    @Test
    void badOptionsAreAUsageError() {
        assertEquals(2, new CommandLine(new Soak()).execute("--threads", "0"));
    }
}
