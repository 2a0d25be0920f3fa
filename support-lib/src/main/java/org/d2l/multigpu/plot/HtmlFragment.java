package org.d2l.multigpu.plot;

import java.util.Base64;
import java.util.Locale;
import java.util.UUID;

/**
 * The notebook HTML of a {@link LinePlot}: a div holding the PNG as fallback, and a script that loads plotly.js
 * (through RequireJS in the classic Notebook, through a script element elsewhere, e.g. JupyterLab) and runs
 * Tablesaw's plotting code in it; offline, the PNG stays with a one-line note (the reason in its tooltip).
 */
final class HtmlFragment {

    /** The plotly.js build loaded from the CDN. */
    static final String PLOTLY_URL = "https://cdn.plot.ly/plotly-2.35.2.min.js";

    private static final String TEMPLATE = """
            <div id="%1$s" class="d2l-plot" style="width:%2$dpx;max-width:100%%;">\
            <img class="d2l-plot-fallback" alt="%3$s" width="%2$d" height="%4$d" \
            style="max-width:100%%;height:auto;" src="data:image/png;base64,%5$s"/></div>
            <script type="text/javascript">
            (function () {
              var divId = "%1$s";
              var url = "%7$s";
              function draw(Plotly) {
                var div = document.getElementById(divId);
                if (!div) { return; }
                %6$s
                var img = div.querySelector("img.d2l-plot-fallback");
                if (img && img.parentNode) { img.parentNode.removeChild(img); }
              }
              function fail(err) {
                var div = document.getElementById(divId);
                if (!div) { return; }
                var note = document.createElement("div");
                note.style.cssText = "color:#888;font-size:small;";
                note.textContent = "Interactive figure needs internet; static image shown.";
                note.title = "plotly.js could not be loaded from " + url + " (" + err + ")";
                div.appendChild(note);
              }
              if (window.Plotly) { draw(window.Plotly); return; }
              if (typeof window.require === "function" && typeof window.require.config === "function") {
                window.require.config({ paths: { d2l_plotly: url.replace(/\\.js$/, "") } });
                window.require(["d2l_plotly"], function (Plotly) {
                  if (!window.Plotly) { window.Plotly = Plotly; }
                  draw(Plotly);
                }, fail);
                return;
              }
              if (!window.d2lPlotlyLoading) {
                window.d2lPlotlyLoading = new Promise(function (resolve, reject) {
                  var amd = window.define;
                  var hidden = typeof amd === "function" && amd.amd;
                  if (hidden) { window.define = undefined; }
                  function restore() { if (hidden) { window.define = amd; } }
                  var script = document.createElement("script");
                  script.src = url;
                  script.async = true;
                  script.onload = function () {
                    restore();
                    if (window.Plotly) { resolve(window.Plotly); } else { reject("window.Plotly is undefined"); }
                  };
                  script.onerror = function () {
                    restore();
                    window.d2lPlotlyLoading = undefined;
                    reject("network error");
                  };
                  document.head.appendChild(script);
                });
              }
              window.d2lPlotlyLoading.then(draw, fail);
            })();
            </script>
            """;

    private HtmlFragment() {}

    /** The fragment with a fresh div id (a JS identifier, as Tablesaw needs) and the PNG as fallback image. */
    static String of(LinePlot plot, byte[] png) {
        String divId = "plot_" + UUID.randomUUID().toString().replace("-", "");
        String js = plot.figure().asJavascript(divId);
        String body = js.substring(js.indexOf("<script>") + "<script>".length(), js.lastIndexOf("</script>")).strip();
        String alt = plot.title().isEmpty() ? "line plot" : plot.title();
        return String.format(Locale.ROOT, TEMPLATE, divId, plot.width(), escape(alt), plot.height(),
                Base64.getEncoder().encodeToString(png), body, PLOTLY_URL);
    }

    /** A standalone page: plotly.js in the head, the fragment in the body; offline it still shows the PNG. */
    static String page(LinePlot plot, byte[] png) {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
                + escape(plot.title()) + "</title>\n<script src=\"" + PLOTLY_URL + "\" charset=\"utf-8\"></script>\n"
                + "</head>\n<body>\n" + of(plot, png) + "</body>\n</html>\n";
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
