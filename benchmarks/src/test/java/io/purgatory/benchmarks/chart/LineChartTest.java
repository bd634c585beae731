package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class LineChartTest {

    private static final int FIRST_SERIES_COLOUR = 0x1f77b4;

    @Test
    void drawsAPngWithTheSeriesInItsColour() throws IOException {
        Panel panel = new Panel("title", "pending", "ops/s", List.of(
                new Panel.Series("PURGATORY", List.of(new Panel.Point(1e3, 5e6, 1e5), new Panel.Point(1e6, 4e6, Double.NaN))),
                new Panel.Series("KAFKA", List.of(new Panel.Point(1e3, 3e6, 0), new Panel.Point(1e6, 2e6, 0)))));

        BufferedImage image = LineChart.render(panel);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(image, "png", png);
        BufferedImage read = ImageIO.read(new ByteArrayInputStream(png.toByteArray()));

        assertEquals(LineChart.WIDTH, read.getWidth());
        assertEquals(LineChart.HEIGHT, read.getHeight());
        assertTrue(countPixels(read, FIRST_SERIES_COLOUR) > 100, "the first line and its markers are drawn");
    }

    @Test
    void aSinglePointAtZeroStillHasAxes() {
        Panel panel = new Panel("t", "pending", "B/op", List.of(
                new Panel.Series("A", List.of(new Panel.Point(1000, 0, Double.NaN)))));

        BufferedImage image = LineChart.render(panel);

        assertTrue(countPixels(image, FIRST_SERIES_COLOUR) > 10);
    }

    /**
     * Points at 1, 100 and 10,000 (x 1, 10, 100): on a log y axis the middle one sits halfway up the
     * plot, on a linear one near the bottom.
     */
    @Test
    void aLogYAxisSpacesDecadesEvenly() {
        Panel panel = new Panel("t", "lag", "µs", List.of(new Panel.Series("A", List.of(
                new Panel.Point(1, 1, Double.NaN), new Panel.Point(10, 100, Double.NaN), new Panel.Point(100, 10_000, Double.NaN)))));

        assertEquals(0.5, middleMarkerHeight(LineChart.render(panel, LineChart.YScale.LOG)), 0.02);
        assertEquals(0.01, middleMarkerHeight(LineChart.render(panel, LineChart.YScale.LINEAR)), 0.02);
    }

    /** How high up the plot area the marker at x = 10 stands (the x axis is log, symmetric about 10 here), 0 to 1. */
    private static double middleMarkerHeight(BufferedImage image) {
        int column = LineChart.LEFT + (LineChart.WIDTH - LineChart.LEFT - LineChart.RIGHT) / 2;
        int rows = 0;
        long sum = 0;
        for (int y = LineChart.TOP; y <= LineChart.HEIGHT - LineChart.BOTTOM; y++) {
            if ((image.getRGB(column, y) & 0xffffff) == FIRST_SERIES_COLOUR) {
                rows++;
                sum += y;
            }
        }
        double bottom = LineChart.HEIGHT - LineChart.BOTTOM;
        return (bottom - (double) sum / rows) / (bottom - LineChart.TOP);
    }

    @Test
    void ticksAreOneTwoOrFiveTimesAPowerOfTen() {
        assertEquals(1, LineChart.niceStep(0.7));
        assertEquals(2, LineChart.niceStep(1.3));
        assertEquals(5e6, LineChart.niceStep(2.1e6));
        assertEquals(10, LineChart.niceStep(5.5));
    }

    @Test
    void labelsUseSiSuffixes() {
        assertEquals("0", LineChart.si(0));
        assertEquals("950", LineChart.si(950));
        assertEquals("1k", LineChart.si(1000));
        assertEquals("1.5k", LineChart.si(1500));
        assertEquals("100k", LineChart.si(100_000));
        assertEquals("2.25M", LineChart.si(2_250_000));
    }

    private static int countPixels(BufferedImage image, int rgb) {
        int count = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    count++;
                }
            }
        }
        return count;
    }
}
