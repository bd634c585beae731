package io.purgatory.benchmarks.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Draws a {@link Panel} as a line chart: x on a log scale with a tick at every x that has a point,
 * y linear from zero with round ticks or ({@link YScale#LOG}) logarithmic with a tick per decade, one coloured line with markers per series, vertical error
 * bars where the confidence interval is known, and a legend. Pure Java 2D on a
 * {@link BufferedImage}, so it works headless.
 *
 * <p>Stateless and thread-safe.
 */
final class LineChart {

    // Visible for testing (the image's size and its plot area's margins)
    static final int WIDTH = 960;
    static final int HEIGHT = 600;
    static final int LEFT = 100;
    static final int RIGHT = 40;
    static final int TOP = 60;
    static final int BOTTOM = 70;
    private static final double X_PADDING_DECADES = 0.25;
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
    };

    /** How the y axis maps values: linear from zero, or logarithmic (for values spanning decades). */
    enum YScale { LINEAR, LOG }

    private LineChart() {
    }

    static BufferedImage render(Panel panel) {
        return render(panel, YScale.LINEAR);
    }

    static BufferedImage render(Panel panel, YScale yScale) {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            new Frame(g, panel, yScale).draw();
        } finally {
            g.dispose();
        }
        return image;
    }

    /** The axes' ranges for one panel and the drawing that uses them. */
    private static final class Frame {
        private final Graphics2D g;
        private final Panel panel;
        private final TreeSet<Double> xs = new TreeSet<>();
        private final double minLogX;
        private final double maxLogX;
        private final YScale yScale;
        private final double yStep;
        private final double maxY;
        /** The lowest decade drawn on a log y axis: 10^minLogY. */
        private final double minLogY;

        Frame(Graphics2D g, Panel panel, YScale yScale) {
            this.g = g;
            this.panel = panel;
            this.yScale = yScale;
            double top = 0;
            double bottom = Double.POSITIVE_INFINITY;
            for (Panel.Series series : panel.series()) {
                for (Panel.Point point : series.points()) {
                    xs.add(point.x());
                    top = Math.max(top, point.y() + (Double.isNaN(point.error()) ? 0 : point.error()));
                    if (point.y() > 0) {
                        bottom = Math.min(bottom, point.y());
                    }
                }
            }
            this.minLogX = Math.log10(xs.first()) - X_PADDING_DECADES;
            this.maxLogX = Math.log10(xs.last()) + X_PADDING_DECADES;
            if (yScale == YScale.LOG) {
                this.minLogY = Math.floor(Math.log10(bottom == Double.POSITIVE_INFINITY ? 1 : bottom));
                this.maxY = Math.pow(10, Math.max(minLogY + 1, Math.ceil(Math.log10(Math.max(top, 1e-300)))));
                this.yStep = 10; // a factor: one tick per decade
            } else {
                this.minLogY = 0;
                this.yStep = niceStep(top > 0 ? top / 5 : 1);
                this.maxY = Math.max(yStep, Math.ceil(top / yStep) * yStep);
            }
        }

        void draw() {
            drawTitle();
            drawAxes();
            for (int i = 0; i < panel.series().size(); i++) {
                drawSeries(panel.series().get(i), PALETTE[i % PALETTE.length]);
            }
            drawLegend();
        }

        private void drawTitle() {
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            centred(panel.title(), WIDTH / 2, TOP / 2 + 5);
        }

        private void drawAxes() {
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setStroke(new BasicStroke(1));
            double firstTick = yScale == YScale.LOG ? Math.pow(10, minLogY) : 0;
            for (double y = firstTick; y <= maxY * 1.0001; y = yScale == YScale.LOG ? y * yStep : y + yStep) {
                int py = py(y);
                g.setColor(new Color(0xe6e6e6));
                g.drawLine(LEFT, py, WIDTH - RIGHT, py);
                g.setColor(Color.DARK_GRAY);
                String label = si(y);
                g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), py + 4);
            }
            for (double x : xs) {
                int px = px(x);
                g.setColor(new Color(0xe6e6e6));
                g.drawLine(px, TOP, px, HEIGHT - BOTTOM);
                g.setColor(Color.DARK_GRAY);
                centred(si(x), px, HEIGHT - BOTTOM + 18);
            }
            g.setColor(Color.BLACK);
            g.drawRect(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            centred(panel.xLabel() + " (log scale)", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - BOTTOM + 45);
            AffineTransform saved = g.getTransform();
            g.rotate(-Math.PI / 2);
            centred(panel.unit() + (yScale == YScale.LOG ? " (log scale)" : ""), -(TOP + HEIGHT - BOTTOM) / 2, 30);
            g.setTransform(saved);
        }

        private void drawSeries(Panel.Series series, Color color) {
            g.setColor(color);
            g.setStroke(new BasicStroke(2.2f));
            Path2D line = new Path2D.Double();
            boolean first = true;
            for (Panel.Point point : series.points()) {
                if (first) {
                    line.moveTo(px(point.x()), py(point.y()));
                    first = false;
                } else {
                    line.lineTo(px(point.x()), py(point.y()));
                }
            }
            g.draw(line);
            g.setStroke(new BasicStroke(1.2f));
            for (Panel.Point point : series.points()) {
                int px = px(point.x());
                int py = py(point.y());
                g.fillOval(px - 4, py - 4, 9, 9);
                if (!Double.isNaN(point.error()) && point.error() > 0) {
                    int low = py(Math.max(yScale == YScale.LOG ? Math.pow(10, minLogY) : 0, point.y() - point.error()));
                    int high = py(point.y() + point.error());
                    g.drawLine(px, low, px, high);
                    g.drawLine(px - 5, low, px + 5, low);
                    g.drawLine(px - 5, high, px + 5, high);
                }
            }
        }

        private void drawLegend() {
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            FontMetrics metrics = g.getFontMetrics();
            int width = 0;
            for (Panel.Series series : panel.series()) {
                width = Math.max(width, metrics.stringWidth(series.name()));
            }
            int boxWidth = width + 44;
            int boxHeight = panel.series().size() * 20 + 10;
            int x = WIDTH - RIGHT - boxWidth - 10;
            int y = TOP + 10;
            g.setColor(new Color(255, 255, 255, 230));
            g.fillRect(x, y, boxWidth, boxHeight);
            g.setColor(Color.GRAY);
            g.drawRect(x, y, boxWidth, boxHeight);
            for (int i = 0; i < panel.series().size(); i++) {
                int rowY = y + 18 + i * 20;
                g.setColor(PALETTE[i % PALETTE.length]);
                g.setStroke(new BasicStroke(2.2f));
                g.drawLine(x + 8, rowY - 4, x + 28, rowY - 4);
                g.setColor(Color.BLACK);
                g.drawString(panel.series().get(i).name(), x + 34, rowY);
            }
        }

        private int px(double x) {
            double fraction = (Math.log10(x) - minLogX) / (maxLogX - minLogX);
            return (int) Math.round(LEFT + fraction * (WIDTH - LEFT - RIGHT));
        }

        private int py(double y) {
            double fraction = yScale == YScale.LOG
                    ? (Math.log10(Math.max(y, Math.pow(10, minLogY))) - minLogY) / (Math.log10(maxY) - minLogY)
                    : y / maxY;
            return (int) Math.round(HEIGHT - BOTTOM - fraction * (HEIGHT - TOP - BOTTOM));
        }

        private void centred(String text, int x, int y) {
            g.drawString(text, x - g.getFontMetrics().stringWidth(text) / 2, y);
        }
    }

    /** The smallest of 1, 2 or 5 times a power of ten that is at least rough. */
    // Visible for testing
    static double niceStep(double rough) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        for (double multiple : new double[] {1, 2, 5}) {
            if (multiple * magnitude >= rough) {
                return multiple * magnitude;
            }
        }
        return 10 * magnitude;
    }

    /** 1500 as {@code 1.5k}, 2000000 as {@code 2M}; numbers below a thousand as they are. */
    // Visible for testing
    static String si(double value) {
        String[] suffixes = {"", "k", "M", "G", "T"};
        int i = 0;
        double scaled = value;
        while (Math.abs(scaled) >= 1000 && i < suffixes.length - 1) {
            scaled /= 1000;
            i++;
        }
        String number = String.format(Locale.ROOT, "%.2f", scaled).replaceAll("\\.?0+$", "");
        return number + suffixes[i];
    }
}
