package org.d2l.multigpu.plot;

import java.util.ArrayList;
import java.util.List;
import tech.tablesaw.plotly.components.Axis;
import tech.tablesaw.plotly.components.Figure;
import tech.tablesaw.plotly.components.Layout;
import tech.tablesaw.plotly.components.Line;
import tech.tablesaw.plotly.components.Marker;
import tech.tablesaw.plotly.traces.ScatterTrace;
import tech.tablesaw.plotly.traces.Trace;

/** Builds the Tablesaw plotly {@link Figure} of a {@link LinePlot}. */
final class TablesawFigures {

    private TablesawFigures() {}

    /**
     * The figure; Tablesaw writes text into single-quoted JS strings without escaping backslashes or line breaks,
     * and numbers as strings ("NaN"), so text is made JS-safe here and non-finite points are left out.
     */
    static Figure of(LinePlot plot) {
        List<Trace> traces = new ArrayList<>();
        int index = 0;
        for (Series s : plot.series()) {
            String colour = Palette.hex(index++);
            double[][] xy = finitePoints(s);
            traces.add(ScatterTrace.builder(xy[0], xy[1])
                    .mode(ScatterTrace.Mode.LINE_AND_MARKERS)
                    .name(jsSafe(s.name()))
                    .showLegend(true)
                    .line(Line.builder().color(colour).width(2).build())
                    .marker(Marker.builder().color(colour).size(6).build())
                    .build());
        }
        Layout.LayoutBuilder layout = Layout.builder()
                .width(plot.width())
                .height(plot.height())
                .showLegend(true)
                .xAxis(Axis.builder().title(jsSafe(plot.xLabel())).build())
                .yAxis(Axis.builder().title(jsSafe(plot.yLabel())).build());
        if (!plot.title().isEmpty()) {
            layout.title(jsSafe(plot.title()));
        }
        return new Figure(layout.build(), traces.toArray(new Trace[0]));
    }

    /** Replaces characters that would end or break a single-quoted JS string literal. */
    static String jsSafe(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                b.append('\u29f5');
            } else if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                b.append(' ');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static double[][] finitePoints(Series s) {
        int n = 0;
        for (int i = 0; i < s.size(); i++) {
            if (s.isFinite(i)) {
                n++;
            }
        }
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0, j = 0; i < s.size(); i++) {
            if (s.isFinite(i)) {
                x[j] = s.x(i);
                y[j++] = s.y(i);
            }
        }
        return new double[][] {x, y};
    }
}
