package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.IntervalXYDataset;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The charts as a reader sees them: the PNG, its title and legend, the axes' scales, the points and their error bars. */
class ChartsTest {

    private static YIntervalSeriesCollection twoTimers(Charts.YScale yScale) {
        YIntervalSeries purgatory = new YIntervalSeries("PURGATORY");
        Charts.add(purgatory, 1e6, 4e6, Double.NaN, yScale);
        Charts.add(purgatory, 1e3, 5e6, 1e5, yScale);
        YIntervalSeries kafka = new YIntervalSeries("KAFKA");
        Charts.add(kafka, 1e3, 3e6, 4e6, yScale);
        Charts.add(kafka, 1e6, 2e6, 0, yScale);
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        data.addSeries(purgatory);
        data.addSeries(kafka);
        return data;
    }

    @Test
    void writesAPngOfTheChartsSize(@TempDir Path dir) throws IOException {
        JFreeChart chart = Charts.lineChart("title", "pending", "ops/s", twoTimers(Charts.YScale.LINEAR), Charts.YScale.LINEAR);
        Path file = dir.resolve("charts/chart.png");

        Charts.writePng(chart, file);

        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        assertTrue(distinctColours(image) > 10, "more than a blank image");
    }

    @Test
    void aLinearChartHasTheSeriesInOrderWithPointsSortedByXAndErrorBars() {
        JFreeChart chart = Charts.lineChart("title", "pending", "ops/s", twoTimers(Charts.YScale.LINEAR), Charts.YScale.LINEAR);
        XYPlot plot = chart.getXYPlot();

        assertEquals("title", Charts.title(chart));
        assertEquals(List.of("PURGATORY", "KAFKA"), seriesNames(plot));
        IntervalXYDataset data = (IntervalXYDataset) plot.getDataset();
        assertEquals(List.of(1e3, 1e6), List.of(data.getXValue(0, 0), data.getXValue(0, 1)));
        assertEquals(List.of(4.9e6, 5e6, 5.1e6), List.of(data.getStartYValue(0, 0), data.getYValue(0, 0), data.getEndYValue(0, 0)));
        assertEquals(data.getYValue(0, 1), data.getEndYValue(0, 1), "no interval where the error is unknown");
        assertEquals(0, data.getStartYValue(1, 0), "an interval reaching below zero stops at zero");

        LogAxis x = assertInstanceOf(LogAxis.class, plot.getDomainAxis());
        assertEquals("pending (log scale)", x.getLabel());
        NumberAxis y = assertInstanceOf(NumberAxis.class, plot.getRangeAxis());
        assertEquals("ops/s", y.getLabel());
        assertTrue(y.getAutoRangeIncludesZero());
        XYErrorRenderer renderer = assertInstanceOf(XYErrorRenderer.class, plot.getRenderer());
        assertTrue(renderer.getDrawYError());
        assertTrue(renderer.getDefaultLinesVisible());
        assertTrue(chart.getLegend().isVisible());
    }

    @Test
    void aLogChartHasALogYAxisAndNoIntervalBelowZero() {
        JFreeChart chart = Charts.lineChart("t", "lag", "µs", twoTimers(Charts.YScale.LOG), Charts.YScale.LOG);
        XYPlot plot = chart.getXYPlot();

        assertInstanceOf(LogAxis.class, plot.getDomainAxis());
        LogAxis y = assertInstanceOf(LogAxis.class, plot.getRangeAxis());
        assertEquals("µs (log scale)", y.getLabel());
        IntervalXYDataset data = (IntervalXYDataset) plot.getDataset();
        assertEquals(3e6, data.getStartYValue(1, 0), "the interval that reaches below zero is drawn from the point up");
        assertEquals(7e6, data.getEndYValue(1, 0));
    }

    /** Points at 1, 100 and 10,000: on a log y axis the middle one is drawn halfway up the plot, on a linear one near the bottom. */
    @Test
    void aLogYAxisSpacesDecadesEvenly() {
        assertEquals(0.5, heightOfTheMiddlePoint(Charts.YScale.LOG), 0.01);
        assertEquals(0.01, heightOfTheMiddlePoint(Charts.YScale.LINEAR), 0.01);
    }

    /** How high up a plot area the point at y = 100 is drawn, 0 to 1. */
    private static double heightOfTheMiddlePoint(Charts.YScale scale) {
        YIntervalSeries line = new YIntervalSeries("A");
        Charts.add(line, 1, 1, Double.NaN, scale);
        Charts.add(line, 10, 100, Double.NaN, scale);
        Charts.add(line, 100, 10_000, Double.NaN, scale);
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        data.addSeries(line);
        XYPlot plot = Charts.lineChart("t", "x", "y", data, scale).getXYPlot();
        Rectangle2D area = new Rectangle2D.Double(0, 0, 800, 500);
        return 1 - plot.getRangeAxis().valueToJava2D(100, area, RectangleEdge.LEFT) / area.getHeight();
    }

    private static List<String> seriesNames(XYPlot plot) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            names.add(plot.getDataset().getSeriesKey(i).toString());
        }
        return names;
    }

    private static long distinctColours(BufferedImage image) {
        return java.util.stream.IntStream.range(0, image.getWidth() * image.getHeight())
                .map(i -> image.getRGB(i % image.getWidth(), i / image.getWidth())).distinct().count();
    }
}
