package org.d2l.multigpu.plot;

/** Writes a {@link LinePlot} as a plotly.js figure JSON object {data, layout, config}, safe to embed in a script. */
final class PlotlyJson {

    private PlotlyJson() {}

    /** The figure as JSON text; non-finite numbers become null (a gap) and text is escaped for HTML and JS. */
    static String of(LinePlot plot) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"data\":[");
        int index = 0;
        for (Series s : plot.series()) {
            if (index > 0) {
                b.append(',');
            }
            String colour = string(Palette.hex(index++));
            b.append("{\"type\":\"scatter\",\"mode\":\"lines+markers\",\"name\":").append(text(s.name()))
                    .append(",\"x\":").append(numbers(s.x()))
                    .append(",\"y\":").append(numbers(s.y()))
                    .append(",\"line\":{\"color\":").append(colour).append(",\"width\":2}")
                    .append(",\"marker\":{\"color\":").append(colour).append(",\"size\":6}}");
        }
        b.append("],\"layout\":{");
        if (!plot.title().isEmpty()) {
            b.append("\"title\":{\"text\":").append(text(plot.title())).append("},");
        }
        b.append("\"width\":").append(plot.width())
                .append(",\"height\":").append(plot.height())
                .append(",\"showlegend\":true")
                .append(",\"margin\":{\"l\":70,\"r\":20,\"t\":").append(plot.title().isEmpty() ? 20 : 50)
                .append(",\"b\":60}")
                .append(",\"xaxis\":{\"title\":{\"text\":").append(text(plot.xLabel())).append('}')
                .append(smallIntegerRange(plot) ? ",\"dtick\":1}" : "}")
                .append(",\"yaxis\":{\"title\":{\"text\":").append(text(plot.yLabel())).append("}}")
                .append("},\"config\":{\"displaylogo\":false,\"responsive\":false}}");
        return b.toString();
    }

    /** A JSON string literal for plotly text, which plotly reads as pseudo-HTML: markup characters are entities. */
    static String text(String s) {
        return string(s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
    }

    /** A JSON string literal that also cannot close a script element or break a JS line. */
    static String string(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Whether x holds whole numbers spanning at most 15, where plotly would otherwise tick at halves. */
    private static boolean smallIntegerRange(LinePlot plot) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Series s : plot.series()) {
            for (int i = 0; i < s.size(); i++) {
                if (s.isFinite(i)) {
                    lo = Math.min(lo, s.x(i));
                    hi = Math.max(hi, s.x(i));
                }
            }
        }
        return plot.hasIntegerX() && hi - lo <= 15;
    }

    private static String numbers(double[] values) {
        StringBuilder b = new StringBuilder(values.length * 8).append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            double v = values[i];
            if (!Double.isFinite(v)) {
                b.append("null");
            } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
                b.append((long) v);
            } else {
                b.append(v);
            }
        }
        return b.append(']').toString();
    }
}
