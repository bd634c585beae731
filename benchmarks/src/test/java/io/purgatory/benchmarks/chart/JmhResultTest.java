package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JmhResultTest {

    static String fixture() throws IOException {
        try (InputStream in = JmhResultTest.class.getResourceAsStream("jmh-result.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsThePrimaryScoreOfEveryResult() throws IOException {
        List<JmhResult> results = JmhResult.parse(fixture(), JmhResult.PRIMARY);

        assertEquals(6, results.size());
        JmhResult first = results.get(0);
        assertEquals("io.purgatory.benchmarks.timer.TimerAddCancelBenchmark.oneThread", first.benchmark());
        assertEquals("TimerAddCancelBenchmark.oneThread", first.shortName());
        assertEquals(1, first.threads());
        assertEquals(Map.of("pending", "1000", "timer", "PURGATORY"), first.params());
        assertEquals(9.5e6, first.score());
        assertEquals(2.5e5, first.error());
        assertEquals("ops/s", first.unit());
    }

    @Test
    void anErrorJmhCouldNotComputeIsNaN() throws IOException {
        JmhResult kafka = JmhResult.parse(fixture(), JmhResult.PRIMARY).get(2);

        assertTrue(Double.isNaN(kafka.error()));
    }

    @Test
    void readsASecondaryMetricWhereItWasMeasured() throws IOException {
        List<JmhResult> results = JmhResult.parse(fixture(), "gc.alloc.rate.norm");

        assertEquals(4, results.size(), "the two-thread runs were made without -prof gc");
        assertEquals(56.0, results.get(0).score());
        assertEquals("B/op", results.get(0).unit());
    }

    @Test
    void rejectsWhatIsNotAJmhResultDocument() {
        assertThrows(IOException.class, () -> JmhResult.parse("[{\"benchmark\": \"a\\", JmhResult.PRIMARY), "a trailing backslash");
        assertThrows(IOException.class, () -> JmhResult.parse("[1, 2", JmhResult.PRIMARY));
        assertThrows(IOException.class, () -> JmhResult.parse("[] x", JmhResult.PRIMARY));
        assertThrows(IOException.class, () -> JmhResult.parse("{}", JmhResult.PRIMARY));
    }
}
