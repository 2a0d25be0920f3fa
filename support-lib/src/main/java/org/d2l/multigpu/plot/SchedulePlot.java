package org.d2l.multigpu.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.d2l.multigpu.modelparallel.Timeline;
import org.d2l.multigpu.notebook.KernelIo;
import org.d2l.multigpu.notebook.Notebook;
import org.d2l.multigpu.step.StepPhases;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A schedule drawn as boxes on rows against time (a Gantt chart), e.g. a pipeline's forward and backward passes
 * per stage: one box per piece of work, coloured by its kind and labelled, as an XChart PNG.
 */
public record SchedulePlot(List<Box> boxes, List<String> rows, String title, String xTitle, int width, int height) {

    /** One piece of work on row {@code row} (0 drawn at the top) from {@code start} to {@code end}, of a kind that sets its colour. */
    public record Box(int row, String label, double start, double end, String kind) {}

    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0xd62728), new Color(0x9467bd)};

    /** Checks the rows, the boxes and the size (between 200x150 and 4000x4000). */
    public SchedulePlot {
        if (rows == null || rows.isEmpty()) {
            throw new IllegalArgumentException("a schedule needs at least one row, e.g. List.of(\"stage 0\", \"stage 1\")");
        }
        boxes = List.copyOf(boxes);
        for (Box b : boxes) {
            if (b.row() < 0 || b.row() >= rows.size() || !(b.end() >= b.start())) {
                throw new IllegalArgumentException("a box needs a row from 0 to " + (rows.size() - 1)
                        + " and an end after its start, got " + b);
            }
        }
        if (width < 200 || height < 150 || width > 4000 || height > 4000) {
            throw new IllegalArgumentException("plot size must be between 200x150 and 4000x4000 pixels, got "
                    + width + "x" + height);
        }
        rows = List.copyOf(rows);
        title = title == null ? "" : title;
        xTitle = xTitle == null ? "" : xTitle;
    }

    /** The plot of {@code boxes} on {@code rows}, 720 pixels wide and 60 high per row plus the frame. */
    public static SchedulePlot of(List<Box> boxes, List<String> rows, String title, String xTitle) {
        return new SchedulePlot(boxes, rows, title, xTitle, 720, 130 + 60 * (rows == null ? 1 : rows.size()));
    }

    /** A pipeline's passes: stage against time ({@code xTitle}, e.g. "ms"), one box per pass, forward and backward in two colours. */
    public static SchedulePlot of(Timeline timeline, String title, String xTitle) {
        List<Box> boxes = timeline.entries().stream().map(e -> new Box(e.stage(), e.op().toString(), e.start(), e.end(),
                e.op().forward() ? "forward" : "backward")).toList();
        List<String> rows = IntStream.range(0, timeline.stages()).mapToObj(s -> "stage " + s).toList();
        return of(boxes, rows, title, xTitle);
    }

    /**
     * Training steps' phases ({@code DataParallelTrainer.recentSteps()}): replica against milliseconds from the
     * first step's start, one box per replica and phase of each step, coloured by phase.
     */
    public static SchedulePlot ofSteps(List<StepPhases> steps, String title) {
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("no steps to draw: train a step first.");
        }
        StepPhases first = steps.get(0);
        List<Box> boxes = new java.util.ArrayList<>();
        for (StepPhases step : steps) {
            double at = step.millisSince(first);
            for (StepPhases.Span s : step.spans()) {
                boxes.add(new Box(s.replica(), "", at + s.start(), at + s.end(), s.phase().label()));
            }
        }
        int k = steps.stream().mapToInt(StepPhases::replicas).max().getAsInt();
        List<String> rows = IntStream.range(0, k).mapToObj(r -> "replica " + r).toList();
        return of(boxes, rows, title, "ms from the start of the first step drawn");
    }

    /** The same plot at another size. */
    public SchedulePlot size(int w, int h) {
        return new SchedulePlot(boxes, rows, title, xTitle, w, h);
    }

    /** The XChart chart: a thick line segment per box, its label inside. */
    public XYChart chart() {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xTitle).yAxisTitle("")
                .build();
        Styler st = chart.getStyler();
        st.setChartBackgroundColor(Color.WHITE).setLegendPosition(Styler.LegendPosition.OutsideS)
                .setLegendLayout(Styler.LegendLayout.Horizontal);
        st.setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10)).setAnnotationTextFontColor(Color.WHITE);
        chart.getStyler().setYAxisMin(-0.6).setYAxisMax(rows.size() - 0.4).setPlotGridHorizontalLinesVisible(false)
                .setYAxisTickMarkSpacingHint(Math.max(1, (height - 130) / rows.size()));
        chart.setCustomYAxisTickLabelsFormatter(v -> tickLabel(rows, v));
        float thick = (float) Math.max(4, 0.55 * (height - 130) / rows.size());
        List<String> kinds = boxes.stream().map(Box::kind).distinct().toList();
        double span = boxes.stream().mapToDouble(Box::end).max().orElse(1) - boxes.stream().mapToDouble(Box::start).min().orElse(0);
        double gap = span * 0.002; // a sliver between touching boxes
        java.util.Set<String> named = new java.util.HashSet<>();
        for (int i = 0; i < boxes.size(); i++) {
            Box b = boxes.get(i);
            double y = rows.size() - 1 - b.row();
            double from = b.start() + Math.min(gap, (b.end() - b.start()) / 4);
            double to = b.end() - Math.min(gap, (b.end() - b.start()) / 4);
            boolean first = named.add(b.kind()); // the first box of a kind names it in the legend
            XYSeries s = chart.addSeries(first ? b.kind() : b.kind() + " #" + i, new double[] {from, to}, new double[] {y, y});
            s.setMarker(SeriesMarkers.NONE).setLineColor(COLOURS[kinds.indexOf(b.kind()) % COLOURS.length])
                    .setLineStyle(new BasicStroke(thick, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
            s.setShowInLegend(first);
            if (b.label() != null && !b.label().isEmpty()) {
                chart.addAnnotation(new AnnotationText(b.label(), (b.start() + b.end()) / 2, y, false));
            }
        }
        if (boxes.isEmpty()) {
            chart.addSeries(" ", new double[] {0}, new double[] {Double.NaN});
        }
        return chart;
    }

    /**
     * The label of the y tick at {@code v}: the row's name at a row (the first row on top), else a blank of its own
     * length, since XChart drops every tick label when two are equal.
     */
    static String tickLabel(List<String> rows, double v) {
        long r = Math.round(v);
        return Math.abs(v - r) < 1e-6 && r >= 0 && r < rows.size() ? rows.get(rows.size() - 1 - (int) r)
                : " ".repeat(1 + (int) Math.floorMod(Math.round(v * 10), 1000L));
    }

    /** The chart as PNG bytes. */
    public byte[] png() {
        return LinePlot.png(chart());
    }

    /** The notebook bundle: image/png and text/plain. */
    public Map<String, String> mimeBundle() {
        return Map.of(Notebook.PNG, Base64.getEncoder().encodeToString(png()), Notebook.TEXT, toString());
    }

    /** Shows the plot as one notebook output, or prints a one-line note outside Jupyter. */
    public void show() {
        KernelIo.run(() -> Notebook.display(mimeBundle()));
    }

    @Override
    public String toString() {
        return "SchedulePlot[" + title + ": " + boxes.size() + " boxes on " + rows.size() + " rows]";
    }
}
