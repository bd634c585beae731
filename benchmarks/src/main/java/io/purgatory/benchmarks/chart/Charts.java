package io.purgatory.benchmarks.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * The benchmarks' line charts, drawn by JFreeChart: x on a log scale, y linear from zero or
 * ({@link YScale#LOG}) logarithmic, one coloured line with round markers per series, vertical
 * error bars where a point has a confidence interval, the legend below the plot; a log axis has a
 * tick per decade. PNGs of {@value #WIDTH} by {@value #HEIGHT}; headless.
 *
 * <p>Stateless and thread-safe; each chart it returns is for one thread at a time.
 */
final class Charts {

    static final int WIDTH = 960;
    static final int HEIGHT = 600;
    /** Matplotlib's first colours ("tab10"): distinct, and none too pale on white. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
    };
    private static final double MARKER = 9;

    /** How the y axis maps values: linear from zero, or logarithmic (for values spanning decades). */
    enum YScale { LINEAR, LOG }

    private Charts() {
    }

    /**
     * Adds a point at {@code x} with value {@code y} and the half-width of its confidence interval
     * ({@code NaN} if unknown). The values charted here (rates, times, sizes) are never negative, so
     * an interval reaching below zero is cut at zero on a linear axis; a log axis has no zero, and
     * there such an interval is drawn from the point up.
     */
    static void add(YIntervalSeries series, double x, double y, double error, YScale yScale) {
        double half = Double.isNaN(error) ? 0 : error;
        double low = y - half;
        if (low < 0 || yScale == YScale.LOG && low == 0) {
            low = yScale == YScale.LOG ? y : 0;
        }
        series.add(x, y, low, y + half);
    }

    /** The chart of {@code data}: series in their order in the collection, each with its points sorted by x. */
    static JFreeChart lineChart(String title, String xLabel, String yLabel, YIntervalSeriesCollection data, YScale yScale) {
        LogAxis x = logAxis(xLabel + " (log scale)");
        ValueAxis y;
        if (yScale == YScale.LOG) {
            y = logAxis(yLabel + " (log scale)");
        } else {
            NumberAxis linear = new NumberAxis(yLabel);
            linear.setAutoRangeIncludesZero(true);
            y = linear;
        }
        for (ValueAxis axis : new ValueAxis[] {x, y}) {
            axis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
            // larger tick labels also space the ticks of a linear axis further apart: JFreeChart keeps labels from crowding
            axis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        }
        XYErrorRenderer renderer = new XYErrorRenderer();
        renderer.setDrawXError(false);
        renderer.setDefaultLinesVisible(true);
        renderer.setCapLength(10);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2.2f));
            renderer.setSeriesShape(i, new Ellipse2D.Double(-MARKER / 2, -MARKER / 2, MARKER, MARKER));
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.getTitle().setPadding(new RectangleInsets(12, 0, 8, 0));
        chart.getLegend().setPosition(RectangleEdge.BOTTOM);
        chart.getLegend().setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        return chart;
    }

    /** Writes the chart as a PNG, creating the file's directory if it is missing. */
    static void writePng(JFreeChart chart, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }

    /** The chart's title text. */
    static String title(JFreeChart chart) {
        TextTitle title = chart.getTitle();
        return title == null ? "" : title.getText();
    }

    private static LogAxis logAxis(String label) {
        LogAxis axis = new LogAxis(label);
        axis.setTickUnit(new NumberTickUnit(1)); // in powers of the base: one tick per decade
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        axis.setLowerMargin(0.05);
        axis.setUpperMargin(0.05);
        return axis;
    }
}
