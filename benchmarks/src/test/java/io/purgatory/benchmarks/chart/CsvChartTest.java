package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

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
        JFreeChart chart = CsvChart.chart(CSV, "lag", "cpu", "purgatory", "t", "lag", "us", Charts.YScale.LOG);

        XYDataset data = chart.getXYPlot().getDataset();
        assertEquals(List.of("kafka 100.0 11.0", "kafka 1000.0 20.0", "ours 100.0 4.0"), points(data));
    }

    @Test
    void aMissingColumnIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CsvChart.chart(CSV, "lag", "ops", "purgatory", "t", "lag", "us", Charts.YScale.LOG));
        assertEquals("no column ops in the header purgatory,lag,cpu", e.getMessage());
    }

    @Test
    void theCommandLineWritesAPngWithLogAxesByDefault(@TempDir Path dir) throws IOException {
        Path csv = Files.write(dir.resolve("hwm.csv"), CSV);
        Path png = dir.resolve("out/hwm.png");

        assertEquals(0, new CommandLine(new CsvChart()).execute("--x", "lag", "--y", "cpu", "--out", png.toString(), csv.toString()));

        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        JFreeChart chart = CsvChart.chart(CSV, "lag", "cpu", "purgatory", "t", "lag", "us", Charts.YScale.LOG);
        assertInstanceOf(LogAxis.class, chart.getXYPlot().getRangeAxis());
    }

    /** Each point as "series x y". */
    static List<String> points(XYDataset data) {
        List<String> points = new ArrayList<>();
        for (int s = 0; s < data.getSeriesCount(); s++) {
            for (int i = 0; i < data.getItemCount(s); i++) {
                points.add(data.getSeriesKey(s) + " " + data.getXValue(s, i) + " " + data.getYValue(s, i));
            }
        }
        return points;
    }
}
