package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTableTest {

    private record Result(double rate, double latency) {
    }

    @Test
    void twoColumnsGetTheirRatioAlignedRight() {
        String table = new ComparisonTable<>(List.of("ours", "kafka"), List.of(new Result(3000, 2), new Result(1500, 0)))
                .row("rate", Result::rate, Figures::count)
                .row("latency", Result::latency, Figures::duration)
                .render();

        String nl = System.lineSeparator();
        assertEquals(""
                + "          ours  kafka  ours/kafka" + nl
                + "rate     3,000  1,500        2.00" + nl
                + "latency   2 ns   0 ns           -" + nl, table);
    }

    @Test
    void threeColumnsGetNoRatio() {
        String table = new ComparisonTable<>(List.of("a", "b", "c"), List.of(1.0, 2.0, 3.0))
                .row("x", v -> v, Figures::count)
                .render();

        assertEquals("   a  b  c" + System.lineSeparator() + "x  1  2  3" + System.lineSeparator(), table);
    }

    @Test
    void ratioIsUndefinedForZeroOrMissingFigures() {
        assertEquals("0.50", ComparisonTable.ratio(1, 2));
        assertEquals("-", ComparisonTable.ratio(1, 0));
        assertEquals("-", ComparisonTable.ratio(Double.NaN, 2));
        assertEquals("-", ComparisonTable.ratio(1, Double.NaN));
    }

    @Test
    void labelsMustMatchResults() {
        assertThrows(IllegalArgumentException.class, () -> new ComparisonTable<>(List.of("ours"), List.of(1, 2)));
    }
}
