package org.d2l.multigpu.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.ImageIO;

/** Draws a {@link LinePlot} with Java2D (headless) into a PNG: axes, ticks, titles, one polyline per series, legend. */
public final class PngRenderer {

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Color TEXT = new Color(0x2a, 0x3f, 0x5f);
    private static final Color GRID = new Color(0xe5, 0xe5, 0xe5);
    private static final Color AXIS = new Color(0x44, 0x44, 0x44);
    private static final int MARKER = 6;
    private static final int LEGEND_SWATCH = 22;

    private PngRenderer() {}

    /** Renders the plot and returns the PNG bytes. */
    public static byte[] render(LinePlot plot) {
        BufferedImage image = renderImage(plot);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("no PNG writer available in ImageIO");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode PNG", e);
        }
        return out.toByteArray();
    }

    /** Renders the plot into an RGB image. */
    static BufferedImage renderImage(LinePlot plot) {
        BufferedImage image = new BufferedImage(plot.width(), plot.height(), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, plot.width(), plot.height());
            Frame frame = Frame.of(plot, g);
            drawGridAndTicks(g, frame);
            drawSeries(g, plot, frame);
            drawTitles(g, plot, frame);
            drawLegend(g, plot, frame);
        } finally {
            g.dispose();
        }
        return image;
    }

    /** Where the data area lies in the image and how values map to pixels. */
    record Frame(Rectangle area, AxisScale xScale, AxisScale yScale, int legendX) {

        /** Lays out margins from font metrics and fits both axes to the finite data. */
        static Frame of(LinePlot plot, Graphics2D g) {
            double xMin = Double.POSITIVE_INFINITY, xMax = Double.NEGATIVE_INFINITY;
            double yMin = Double.POSITIVE_INFINITY, yMax = Double.NEGATIVE_INFINITY;
            for (Series s : plot.series()) {
                for (int i = 0; i < s.size(); i++) {
                    if (s.isFinite(i)) {
                        xMin = Math.min(xMin, s.x(i));
                        xMax = Math.max(xMax, s.x(i));
                        yMin = Math.min(yMin, s.y(i));
                        yMax = Math.max(yMax, s.y(i));
                    }
                }
            }
            AxisScale xs = AxisScale.fit(xMin, xMax, 0.03, Math.max(3, plot.width() / 110), plot.hasIntegerX());
            AxisScale ys = AxisScale.fit(yMin, yMax, 0.06, Math.max(3, plot.height() / 70));

            FontMetrics tick = g.getFontMetrics(TICK_FONT);
            FontMetrics label = g.getFontMetrics(LABEL_FONT);
            FontMetrics title = g.getFontMetrics(TITLE_FONT);
            int yTickWidth = 0;
            for (double t : ys.ticks()) {
                yTickWidth = Math.max(yTickWidth, tick.stringWidth(ys.label(t)));
            }
            int legendWidth = 0;
            for (Series s : plot.series()) {
                legendWidth = Math.max(legendWidth, label.stringWidth(s.name()));
            }
            legendWidth += LEGEND_SWATCH + 24;
            legendWidth = Math.min(legendWidth, plot.width() / 3);

            int top = plot.title().isEmpty() ? 16 : title.getHeight() + 18;
            int left = 12 + yTickWidth + 8 + (plot.yLabel().isEmpty() ? 0 : label.getHeight() + 6);
            int bottom = 8 + tick.getHeight() + 6 + (plot.xLabel().isEmpty() ? 0 : label.getHeight() + 6);
            int right = legendWidth + 12;
            Rectangle area = new Rectangle(left, top, plot.width() - left - right, plot.height() - top - bottom);
            return new Frame(area, xs, ys, area.x + area.width + 12);
        }

        /** Horizontal pixel of an x value. */
        double px(double x) {
            return xScale.toPixel(x, area.x, area.x + area.width);
        }

        /** Vertical pixel of a y value. */
        double py(double y) {
            return yScale.toPixel(y, area.y + area.height, area.y);
        }
    }

    private static void drawGridAndTicks(Graphics2D g, Frame f) {
        Rectangle a = f.area();
        g.setFont(TICK_FONT);
        FontMetrics fm = g.getFontMetrics();
        g.setStroke(new BasicStroke(1f));
        for (double t : f.yScale().ticks()) {
            double y = f.py(t);
            g.setColor(GRID);
            g.draw(new Line2D.Double(a.x, y, a.x + a.width, y));
            g.setColor(AXIS);
            g.draw(new Line2D.Double(a.x - 5, y, a.x, y));
            String s = f.yScale().label(t);
            g.setColor(TEXT);
            g.drawString(s, a.x - 8 - fm.stringWidth(s), (float) (y + fm.getAscent() / 2.0 - 1));
        }
        for (double t : f.xScale().ticks()) {
            double x = f.px(t);
            g.setColor(GRID);
            g.draw(new Line2D.Double(x, a.y, x, a.y + a.height));
            g.setColor(AXIS);
            g.draw(new Line2D.Double(x, a.y + a.height, x, a.y + a.height + 5));
            String s = f.xScale().label(t);
            g.setColor(TEXT);
            g.drawString(s, (float) (x - fm.stringWidth(s) / 2.0), a.y + a.height + 8 + fm.getAscent());
        }
        g.setColor(AXIS);
        g.drawLine(a.x, a.y + a.height, a.x + a.width, a.y + a.height);
        g.drawLine(a.x, a.y, a.x, a.y + a.height);
    }

    private static void drawSeries(Graphics2D g, LinePlot plot, Frame f) {
        Rectangle a = f.area();
        java.awt.Shape oldClip = g.getClip();
        g.clipRect(a.x - MARKER, a.y - MARKER, a.width + 2 * MARKER, a.height + 2 * MARKER);
        g.setStroke(new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        int index = 0;
        for (Series s : plot.series()) {
            g.setColor(new Color(Palette.rgb(index++)));
            Path2D.Double path = new Path2D.Double();
            boolean penDown = false;
            for (int i = 0; i < s.size(); i++) {
                if (!s.isFinite(i)) {
                    penDown = false;
                    continue;
                }
                if (penDown) {
                    path.lineTo(f.px(s.x(i)), f.py(s.y(i)));
                } else {
                    path.moveTo(f.px(s.x(i)), f.py(s.y(i)));
                    penDown = true;
                }
            }
            g.draw(path);
            for (int i = 0; i < s.size(); i++) {
                if (s.isFinite(i)) {
                    g.fill(marker(f.px(s.x(i)), f.py(s.y(i))));
                }
            }
        }
        g.setClip(oldClip);
    }

    private static void drawTitles(Graphics2D g, LinePlot plot, Frame f) {
        Rectangle a = f.area();
        g.setColor(TEXT);
        if (!plot.title().isEmpty()) {
            g.setFont(TITLE_FONT);
            FontMetrics fm = g.getFontMetrics();
            g.drawString(plot.title(), (plot.width() - fm.stringWidth(plot.title())) / 2f, 10 + fm.getAscent());
        }
        g.setFont(LABEL_FONT);
        FontMetrics fm = g.getFontMetrics();
        if (!plot.xLabel().isEmpty()) {
            g.drawString(plot.xLabel(), a.x + (a.width - fm.stringWidth(plot.xLabel())) / 2f,
                    plot.height() - 8 - fm.getDescent());
        }
        if (!plot.yLabel().isEmpty()) {
            Graphics2D r = (Graphics2D) g.create();
            try {
                r.translate(10 + fm.getAscent(), a.y + (a.height + fm.stringWidth(plot.yLabel())) / 2.0);
                r.rotate(-Math.PI / 2);
                r.drawString(plot.yLabel(), 0, 0);
            } finally {
                r.dispose();
            }
        }
    }

    private static void drawLegend(Graphics2D g, LinePlot plot, Frame f) {
        g.setFont(LABEL_FONT);
        FontMetrics fm = g.getFontMetrics();
        int rowHeight = fm.getHeight() + 4;
        int x = f.legendX();
        int y = f.area().y + 4;
        int index = 0;
        for (Series s : plot.series()) {
            int mid = y + rowHeight / 2;
            g.setColor(new Color(Palette.rgb(index++)));
            g.setStroke(new BasicStroke(2f));
            g.draw(new Line2D.Double(x, mid, x + LEGEND_SWATCH, mid));
            g.fill(marker(x + LEGEND_SWATCH / 2.0, mid));
            g.setColor(TEXT);
            int textX = x + LEGEND_SWATCH + 6;
            g.drawString(fit(s.name(), fm, plot.width() - textX - 4), textX, mid + fm.getAscent() / 2 - 1);
            y += rowHeight;
        }
    }

    /** The text, shortened with an ellipsis if it is wider than maxWidth pixels. */
    static String fit(String text, FontMetrics fm, int maxWidth) {
        if (fm.stringWidth(text) <= maxWidth) {
            return text;
        }
        String cut = text;
        while (!cut.isEmpty() && fm.stringWidth(cut + "\u2026") > maxWidth) {
            cut = cut.substring(0, cut.length() - 1);
        }
        return cut + "\u2026";
    }

    private static Ellipse2D marker(double cx, double cy) {
        return new Ellipse2D.Double(cx - MARKER / 2.0, cy - MARKER / 2.0, MARKER, MARKER);
    }
}
