package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class CsvChartTest {

    private static final List<String> CSV = List.of(
            "purgatory,lag,cpu",
            "kafka,1000,20.0",
            "ours,100,4.0",
            "kafka,100,10.0",
            "kafka,100,14.0",
            "kafka,100,11.0",
            "ours,1000,NaN");

    @Test
    void oneLinePerSeriesSortedByXWithTheMedianOfRepeats() {
        Panel panel = CsvChart.panel(CSV, "lag", "cpu", "purgatory", "t", "lag", "us");

        assertEquals(List.of(
                new Panel.Series("kafka", List.of(new Panel.Point(100, 11.0, Double.NaN),
                        new Panel.Point(1000, 20.0, Double.NaN))),
                new Panel.Series("ours", List.of(new Panel.Point(100, 4.0, Double.NaN)))), panel.series());
    }

    @Test
    void aMissingColumnIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CsvChart.panel(CSV, "lag", "ops", "purgatory", "t", "lag", "us"));
        assertEquals("no column ops in the header purgatory,lag,cpu", e.getMessage());
    }
}
