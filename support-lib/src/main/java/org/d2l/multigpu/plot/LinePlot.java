package org.d2l.multigpu.plot;

import java.awt.Color;
import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.d2l.multigpu.notebook.KernelIo;
import org.d2l.multigpu.notebook.Notebook;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.knowm.xchart.style.Styler;
import tech.tablesaw.api.Table;
import tech.tablesaw.plotly.components.Axis;
import tech.tablesaw.plotly.components.Figure;
import tech.tablesaw.plotly.components.Layout;
import tech.tablesaw.plotly.components.Line;
import tech.tablesaw.plotly.traces.ScatterTrace;
import tech.tablesaw.plotly.traces.Trace;

/**
 * A line chart of column {@code y} of a Tablesaw table against column {@code x}, one line per value of column
 * {@code group} (e.g. test acc against epoch per run): a Tablesaw plotly figure in notebooks, an XChart PNG as fallback.
 */
public record LinePlot(Table table, String x, String y, String group, String title, int width, int height,
        Set<String> guides, boolean xLog, boolean yAxisFromZero) {

    /** plotly's default colours, also given to XChart so that both images colour the runs alike. */
    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};

    /** Checks that the columns exist (group may be null: one line) and the size is between 200x150 and 4000x4000. */
    public LinePlot {
        if (table == null) {
            throw new IllegalArgumentException("table must not be null; e.g. MetricsTable.of(\"1 device\", history)");
        }
        for (String c : group == null ? List.of(x, y) : List.of(x, y, group)) {
            if (c == null || !table.containsColumn(c)) {
                throw new IllegalArgumentException("no column '" + c + "' in the table; it has " + table.columnNames());
            }
        }
        if (width < 200 || height < 150 || width > 4000 || height > 4000) {
            throw new IllegalArgumentException("plot size must be between 200x150 and 4000x4000 pixels, got "
                    + width + "x" + height);
        }
        title = title == null ? "" : title;
        guides = guides == null ? Set.of() : Set.copyOf(guides);
        if (xLog && !table.numberColumn(x).isEmpty() && !(table.numberColumn(x).min() > 0)) {
            throw new IllegalArgumentException("a log axis needs positive values, but column '" + x + "' has "
                    + table.numberColumn(x).min());
        }
    }

    /** The plot of column {@code y} against column {@code x}, one line per value of {@code group} (null: one line). */
    public static LinePlot of(Table table, String x, String y, String group) {
        return new LinePlot(table, x, y, group, y + " by " + x, 640, 400, Set.of(), false, false);
    }

    /** This plot with another title. */
    public LinePlot title(String text) {
        return new LinePlot(table, x, y, group, text, width, height, guides, xLog, yAxisFromZero);
    }

    /** This plot with another size in pixels. */
    public LinePlot size(int w, int h) {
        return new LinePlot(table, x, y, group, title, w, h, guides, xLog, yAxisFromZero);
    }

    /** This plot with the lines named {@code names} drawn as dashed guides without markers (limits, not data). */
    public LinePlot guides(String... names) {
        return new LinePlot(table, x, y, group, title, width, height, Set.of(names), xLog, yAxisFromZero);
    }

    /**
     * This plot with a logarithmic x axis, for x values that grow by factors (k = 1, 2, 4, 8 devices), which it
     * draws equally far apart; the PNG labels the powers of 2 (of 10 over more than 10 octaves).
     */
    public LinePlot logX() {
        return new LinePlot(table, x, y, group, title, width, height, guides, true, yAxisFromZero);
    }

    /** The same plot with its y axis starting at 0 (for quantities whose ratios matter, such as bytes). */
    public LinePlot yFromZero() {
        if (!table.numberColumn(y).isEmpty() && table.numberColumn(y).min() < 0) {
            throw new IllegalArgumentException("a y axis from 0 needs values of at least 0, but column '" + y + "' has "
                    + table.numberColumn(y).min());
        }
        return new LinePlot(table, x, y, group, title, width, height, guides, xLog, true);
    }

    /** The lines by name (in order of first appearance), each holding its finite x and y values. */
    Map<String, double[][]> lines() {
        Table rows = table.where(table.numberColumn(y).isNotMissing().and(table.numberColumn(x).isNotMissing()));
        Map<String, double[][]> lines = new LinkedHashMap<>();
        List<String> names = group == null ? List.of(y)
                : rows.column(group).asStringColumn().asList().stream().distinct().toList();
        for (String name : names) {
            Table t = group == null ? rows : rows.where(rows.column(group).asStringColumn().isEqualTo(name));
            lines.put(jsSafe(name), new double[][] {t.numberColumn(x).asDoubleArray(), t.numberColumn(y).asDoubleArray()});
        }
        return lines;
    }

    /** The Tablesaw plotly figure, e.g. for {@code tech.tablesaw.plotly.Plot.show(figure)}. */
    public Figure figure() {
        List<Trace> traces = lines().entrySet().stream().map(e -> {
            ScatterTrace.ScatterBuilder b = ScatterTrace.builder(e.getValue()[0], e.getValue()[1]).name(e.getKey()).showLegend(true);
            return (Trace) (guides.contains(e.getKey()) ? b.mode(ScatterTrace.Mode.LINE).line(Line.builder().dash(Line.Dash.DASH).build())
                    : b.mode(ScatterTrace.Mode.LINE_AND_MARKERS)).build();
        }).toList();
        Layout layout = Layout.builder().title(jsSafe(title)).width(width).height(height).showLegend(true)
                .xAxis(xLog ? Axis.builder().title(jsSafe(x)).type(Axis.Type.LOG).build() : Axis.builder().title(jsSafe(x)).build())
                .yAxis(yAxisFromZero && !table.numberColumn(y).isEmpty()
                        ? Axis.builder().title(jsSafe(y)).range(0, 1.05 * table.numberColumn(y).max()).build()
                        : Axis.builder().title(jsSafe(y)).build()).build();
        return new Figure(layout, traces.toArray(new Trace[0]));
    }

    /** The XChart line chart of the same data. */
    public XYChart chart() {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setXAxisDecimalPattern("#.##").setYAxisDecimalPattern("#.###").setSeriesColors(COLOURS)
                .setLegendPosition(Styler.LegendPosition.OutsideE).setChartBackgroundColor(Color.WHITE);
        double base = logBase();
        lines().forEach((name, xy) -> {
            double[] xs = xLog ? Arrays.stream(xy[0]).map(v -> Math.log(v) / Math.log(base)).toArray() : xy[0];
            XYSeries series = chart.addSeries(name, xs, xy[1]);
            if (guides.contains(name)) {
                series.setMarker(SeriesMarkers.NONE).setLineStyle(SeriesLines.DASH_DASH);
            }
        });
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries(" ", new double[] {1}, new double[] {Double.NaN});
        }
        if (xLog && !table.numberColumn(x).isEmpty()) { // XChart's own log axis labels only powers of 10
            double octaves = Math.log(table.numberColumn(x).max() / table.numberColumn(x).min()) / Math.log(base);
            chart.getStyler().setXAxisTickMarkSpacingHint((int) Math.max(40, (width - 160) / Math.max(1, octaves)));
            chart.setCustomXAxisTickLabelsFormatter(v -> logTickLabel(v, base));
        }
        if (yAxisFromZero) {
            chart.getStyler().setYAxisMin(0.0);
        }
        fitTitle(chart);
        return chart;
    }

    /** The label of the PNG's log-axis tick at {@code v} = log(x): x where v is a whole power of {@code base}, else none. */
    static String logTickLabel(double v, double base) {
        return Math.abs(v - Math.rint(v)) < 1e-9
                ? new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(Math.pow(base, Math.rint(v)))
                : "";
    }

    /** The PNG's log axis draws log to this base of x, ticks at its whole powers: 2 over at most 10 octaves, else 10. */
    private double logBase() {
        if (!xLog || table.numberColumn(x).isEmpty()) {
            return 2;
        }
        return Math.log(table.numberColumn(x).max() / table.numberColumn(x).min()) / Math.log(2) <= 10 ? 2 : 10;
    }

    /**
     * XChart centres the title over the plot area and cuts it at the image's edge: where it is wider than
     * the plot beside the legend, the legend goes below the plot if it fits there in one row, and a title
     * still too wide gets a smaller font.
     */
    private void fitTitle(XYChart chart) {
        Styler st = chart.getStyler();
        double[] names = chart.getSeriesMap().keySet().stream().mapToDouble(n -> textWidth(n, st.getLegendFont())).toArray();
        double axis = 80; // y-axis title, tick labels and padding
        double room = width - axis - (Arrays.stream(names).max().orElse(0) + 60); // legend: marker, padding
        double wide = textWidth(title, st.getChartTitleFont());
        if (wide <= room) {
            return;
        }
        if (Arrays.stream(names).map(w -> w + 50).sum() + 20 <= width) {
            st.setLegendPosition(Styler.LegendPosition.OutsideS).setLegendLayout(Styler.LegendLayout.Horizontal);
            room = width - axis;
        }
        if (wide > room) {
            Font f = st.getChartTitleFont();
            st.setChartTitleFont(f.deriveFont((float) Math.max(8, f.getSize2D() * room / wide)));
        }
    }

    private static double textWidth(String text, Font font) {
        return font.getStringBounds(text, new FontRenderContext(null, true, true)).getWidth();
    }

    /** The chart as PNG bytes (XChart). */
    public byte[] png() {
        return png(chart());
    }

    /** Any XChart chart of this package as PNG bytes. */
    static byte[] png(XYChart chart) {
        try {
            return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new IllegalStateException("could not encode the chart as PNG: " + e.getMessage(), e);
        }
    }

    /** The notebook bundle: text/html (interactive, PNG inside as fallback), image/png and text/plain. */
    public Map<String, String> mimeBundle() {
        byte[] png = png();
        return Map.of(Notebook.HTML, HtmlFragment.of(this, png), Notebook.PNG,
                java.util.Base64.getEncoder().encodeToString(png), Notebook.TEXT, toString());
    }

    /** Shows the plot as one notebook output, or prints a one-line note outside Jupyter. */
    public void show() {
        KernelIo.run(() -> Notebook.display(mimeBundle())); // drawn off the caller's thread, which keeps an interrupt
    }

    /** Writes a standalone HTML page of the plot (parent folders created) and returns its absolute path. */
    public Path saveHtml(Path file) throws IOException {
        Path target = file.toAbsolutePath().normalize();
        if (Files.isDirectory(target)) {
            throw new IOException("cannot write " + target + ": it is a directory, not a file");
        }
        Files.createDirectories(target.getParent());
        return Files.writeString(target, HtmlFragment.page(this, png()), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "LinePlot[" + title + ": " + String.join(", ", lines().keySet()) + "]";
    }

    /** Tablesaw writes text into single-quoted JS strings escaping HTML only: backslashes and line breaks go. */
    private static String jsSafe(String text) {
        return text.replaceAll("[\\\\\\p{Cntrl}\u2028\u2029]", " ");
    }
}
