package org.d2l.multigpu.plot;

/** A complete HTML page for a {@link LinePlot}: plotly.js in the head, the notebook fragment in the body. */
final class StandaloneHtml {

    private StandaloneHtml() {}

    /** The page; without network access it still shows the embedded PNG. */
    static String of(LinePlot plot) {
        String title = HtmlFragment.escapeAttribute(plot.title().isEmpty() ? "Line plot" : plot.title());
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<title>" + title + "</title>\n"
                + "<script src=\"" + HtmlFragment.PLOTLY_URL + "\" charset=\"utf-8\"></script>\n"
                + "</head>\n<body>\n"
                + HtmlFragment.of(plot)
                + "</body>\n</html>\n";
    }
}
