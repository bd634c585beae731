package io.purgatory.demo.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The summary and histogram for fixed latencies. The latencies are chosen so that HdrHistogram's
 * 3-digit buckets are easy to work out by hand: below 2048 us values are exact; 6000 us sits in a
 * bucket of width 4 (highest equivalent 6003), 12000 us in one of width 8 (12007), 40000 us of
 * width 32 (40031), 1 s in one of width 512 (999936..1000447).
 */
class ReportRendererTest {
    private static final String NL = System.lineSeparator();

    /** 100 acks: 50 at 1.5 ms, 40 at 6 ms, 9 at 12 ms, 1 at 40 ms; 10 timeouts: 9 at 1000 ms, 1 at 1020 ms. */
    private static RunStats twoPopulations() {
        RunStats stats = new RunStats();
        record(stats, Outcome.ACKED, 1_500, 50);
        record(stats, Outcome.ACKED, 6_000, 40);
        record(stats, Outcome.ACKED, 12_000, 9);
        record(stats, Outcome.ACKED, 40_000, 1);
        record(stats, Outcome.TIMED_OUT, 1_000_000, 9);
        record(stats, Outcome.TIMED_OUT, 1_020_000, 1);
        return stats;
    }

    private static void record(RunStats stats, Outcome outcome, long micros, int times) {
        for (int i = 0; i < times; i++) {
            stats.onSent();
            stats.onOutcome(outcome, TimeUnit.MICROSECONDS.toNanos(micros));
        }
    }

    private static RunReport report(RunStats stats, int requests) {
        ClientOptions options = CommandLineOptions.parse("--requests", "" + requests);
        Handshake.Result setup = new Handshake.Result((short) 13, (short) 13,
                new Handshake.TopicMetadata("demo", Uuid.ONE_UUID, List.of(0, 1, 2)));
        return new RunReport(options, setup, TimeUnit.MILLISECONDS.toNanos(1_550), TimeUnit.MILLISECONDS.toNanos(545), stats.sent(),
                requests - stats.sent(), stats.summaries(), null, null);
    }

    @Test
    void summaryGivesCountsAndPercentilesPerOutcome() {
        String summary = ReportRenderer.summary(report(twoPopulations(), 110));

        // p50 is the 50th of 100 acks (1.5 ms); p90 the 90th (6 ms, shown as its bucket's 6.003);
        // p99 the 99th (12 ms); p99.9 the 100th (40 ms); for the 10 timeouts p50 and p90 are 1 s
        // (bucket top 1000.447 ms) and p99, p99.9 the 10th, 1020 ms; min and max are exact.
        String expected = NL
                + "Summary: 110 of 110 requests sent in 0.55 s (200.0 requests/s), last outcome after 1.55 s; acks=-1, timeout 1000 ms" + NL
                + "  outcome    count   min   p50   p90   p99  p99.9   max" + NL
                + "  acked        100  1.50  1.50  6.00  12.0   40.0  40.0" + NL
                + "  timed out     10  1000  1000  1000  1020   1020  1020" + NL
                + "  (latencies in ms from send to outcome; percentiles to 3 significant digits)" + NL
                + NL;
        assertEquals(expected, summary.substring(0, expected.length()));
    }

    @Test
    void noPercentileReadsAboveTheExactMaximum() {
        RunStats stats = new RunStats();
        record(stats, Outcome.TIMED_OUT, 1_008_400, 1); // its HdrHistogram bucket reaches past 1008.5 ms

        String summary = ReportRenderer.summary(report(stats, 1));

        assertTrue(summary.contains(NL + "  timed out      1  1008  1008  1008  1008   1008  1008" + NL), summary);
    }

    @Test
    void histogramShowsBothPopulationsAndTheGapBetweenThem() {
        String histogram = ReportRenderer.histogram(twoPopulations().summaries());

        // the fullest row (50 acks in 1-2 ms) is 50 characters; rows scale to it
        assertEquals(String.join(NL,
                "Latency histogram (ms, log2 buckets):  # acked  x timed out",
                "       1-2 |" + "#".repeat(50) + "| 50",
                "       2-4 |" + " ".repeat(50) + "| 0",
                "       4-8 |" + "#".repeat(40) + " ".repeat(10) + "| 40",
                "      8-16 |" + "#".repeat(9) + " ".repeat(41) + "| 9",
                "     16-32 |" + " ".repeat(50) + "| 0",
                "     32-64 |" + "#" + " ".repeat(49) + "| 1",
                "    64-128 |" + " ".repeat(50) + "| 0",
                "   128-256 |" + " ".repeat(50) + "| 0",
                "   256-512 |" + " ".repeat(50) + "| 0",
                "  512-1024 |" + "x".repeat(10) + " ".repeat(40) + "| 10") + NL, histogram);
    }

    @Test
    void aRowMixingOutcomesShowsEachWithItsCharacter() {
        RunStats stats = new RunStats();
        record(stats, Outcome.ACKED, 600_000, 1);
        record(stats, Outcome.TIMED_OUT, 1_000_000, 10);
        record(stats, new Outcome(Outcome.Kind.ERROR, "NOT_ENOUGH_REPLICAS"), 700, 2);

        assertEquals(String.join(NL,
                "Latency histogram (ms, log2 buckets):  # acked  x timed out  * NOT_ENOUGH_REPLICAS",
                "       0-1 |" + "*".repeat(9) + " ".repeat(41) + "| 2",
                "       1-2 |" + " ".repeat(50) + "| 0",
                "       2-4 |" + " ".repeat(50) + "| 0",
                "       4-8 |" + " ".repeat(50) + "| 0",
                "      8-16 |" + " ".repeat(50) + "| 0",
                "     16-32 |" + " ".repeat(50) + "| 0",
                "     32-64 |" + " ".repeat(50) + "| 0",
                "    64-128 |" + " ".repeat(50) + "| 0",
                "   128-256 |" + " ".repeat(50) + "| 0",
                "   256-512 |" + " ".repeat(50) + "| 0",
                "  512-1024 |" + "#".repeat(5) + "x".repeat(45) + "| 11 (1 # 10 x)") + NL,
                ReportRenderer.histogram(stats.summaries()));
    }

    @Test
    void outcomesWithoutLatenciesAreCountedButNotDrawn() {
        RunStats stats = new RunStats();
        for (int i = 0; i < 3; i++) {
            stats.onSent();
            stats.onOutcome(Outcome.SENT_NO_ACK);
        }
        String summary = ReportRenderer.summary(report(stats, 5));

        assertEquals(List.of(
                "  outcome                              count  min  p50  p90  p99  p99.9  max",
                "  sent (acks=0, no response expected)      3    -    -    -    -      -    -",
                "  not sent                                 2    -    -    -    -      -    -"),
                summary.lines().filter(line -> line.startsWith("  ") && !line.startsWith("  (")).toList());
        assertEquals("Latency histogram: no latencies (no request got a response)", summary.lines().reduce((a, b) -> b).orElseThrow());
    }

    @Test
    void aStoppedRunCountsItsRequestsInFlightSoThatTheRowsAddUp() {
        RunStats stats = twoPopulations(); // 110 outcomes
        for (int i = 0; i < 4; i++) {
            stats.onSent(); // in flight when stopped
        }
        RunReport stopped = report(stats, 120);
        stopped = new RunReport(stopped.options(), stopped.setup(), stopped.elapsedNanos(), stopped.sendingNanos(), stopped.sent(),
                stopped.notSent(), stopped.outcomes(), null, new RunReport.Interrupted(4));

        List<String> rows = ReportRenderer.summary(stopped).lines()
                .dropWhile(line -> !line.startsWith("  outcome")).skip(1).takeWhile(line -> !line.startsWith("  (")).toList();

        assertEquals(List.of("acked", "timed out", "in flight when stopped", "not sent"),
                rows.stream().map(row -> row.trim().split(" {2,}")[0]).toList());
        assertEquals(120, rows.stream().mapToLong(row -> Long.parseLong(row.trim().split(" {2,}")[1])).sum());
    }

    @Test
    void bucketsArePowersOfTwoMilliseconds() {
        assertEquals(0, ReportRenderer.bucketOf(0));
        assertEquals(0, ReportRenderer.bucketOf(999));
        assertEquals(1, ReportRenderer.bucketOf(1_000));
        assertEquals(1, ReportRenderer.bucketOf(1_999));
        assertEquals(2, ReportRenderer.bucketOf(2_000));
        assertEquals(10, ReportRenderer.bucketOf(1_023_999));
        assertEquals(11, ReportRenderer.bucketOf(1_024_000));
        assertEquals("0-1", ReportRenderer.bucketLabel(0));
        assertEquals("512-1024", ReportRenderer.bucketLabel(10));
    }

    @Test
    void liveLineGivesTheRateOverTheLastInterval() {
        Progress previous = new Progress(TimeUnit.MILLISECONDS.toNanos(1_000), 200, 190, 0, 0, 10);
        Progress now = new Progress(TimeUnit.MILLISECONDS.toNanos(2_000), 450, 300, 100, 3, 47);

        assertEquals("[   2.0s] sent    450  acked    300  timed out    100  other errors     3  in flight    47  rate    250 req/s",
                ReportRenderer.liveLine(now, previous));
    }

    @Test
    void millisecondsToThreeSignificantFigures() {
        assertEquals("0.42", ReportRenderer.millis(420));
        assertEquals("8.43", ReportRenderer.millis(8_430));
        assertEquals("23.4", ReportRenderer.millis(23_449));
        assertEquals("1002", ReportRenderer.millis(1_002_400));
    }
}
