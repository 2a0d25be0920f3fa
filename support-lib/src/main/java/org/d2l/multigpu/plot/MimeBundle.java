package org.d2l.multigpu.plot;

import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the Jupyter display bundle (MIME type to data) of a plot: interactive HTML, base64 PNG and plain text. */
public final class MimeBundle {

    /** MIME type of the interactive fragment. */
    public static final String HTML = "text/html";
    /** MIME type of the static image, whose data is base64 without line breaks. */
    public static final String PNG = "image/png";
    /** MIME type of the plain-text description every display should carry. */
    public static final String TEXT = "text/plain";

    private MimeBundle() {}

    /** The bundle of a plot; the PNG is rendered once and also embedded in the HTML as fallback. */
    public static Map<String, String> of(LinePlot plot) {
        byte[] png = plot.png();
        Map<String, String> bundle = new LinkedHashMap<>();
        bundle.put(HTML, HtmlFragment.of(plot, png));
        bundle.put(PNG, Base64.getEncoder().encodeToString(png));
        bundle.put(TEXT, plot.toString());
        return Collections.unmodifiableMap(bundle);
    }
}
