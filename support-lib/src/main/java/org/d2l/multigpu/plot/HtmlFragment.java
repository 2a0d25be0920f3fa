package org.d2l.multigpu.plot;

import java.util.Base64;

/**
 * The notebook HTML of a {@link LinePlot}: a div holding the PNG as fallback, and a script that loads plotly.js
 * (through RequireJS in the classic Notebook, through a script element elsewhere, e.g. JupyterLab) and draws.
 */
public final class HtmlFragment {

    /** The plotly.js build loaded from the CDN. */
    public static final String PLOTLY_URL = "https://cdn.plot.ly/plotly-2.35.2.min.js";

    private static final String TEMPLATE = """
            <div id="%1$s" class="d2l-plot" style="width:%2$dpx;max-width:100%%;">\
            <img class="d2l-plot-fallback" alt="%3$s" width="%2$d" height="%4$d" \
            style="max-width:100%%;height:auto;" src="data:image/png;base64,%5$s"/></div>
            <script type="text/javascript">
            (function () {
              var divId = "%1$s";
              var fig = %6$s;
              var url = "%7$s";
              function target() { return document.getElementById(divId); }
              function draw(Plotly) {
                var div = target();
                if (!div) { return; }
                Plotly.newPlot(div, fig.data, fig.layout, fig.config).then(function () {
                  var img = div.querySelector("img.d2l-plot-fallback");
                  if (img && img.parentNode) { img.parentNode.removeChild(img); }
                });
              }
              function fail(err) {
                var div = target();
                if (!div) { return; }
                var note = document.createElement("div");
                note.style.cssText = "color:#888;font-size:small;";
                note.textContent = "Static image: plotly.js could not be loaded from " + url + " (" + err + ").";
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

    /** The fragment of a plot, with a fresh div id and its PNG as fallback image. */
    public static String of(LinePlot plot) {
        return of(plot, plot.png());
    }

    /** The fragment of a plot using an already rendered PNG as fallback image. */
    public static String of(LinePlot plot, byte[] png) {
        return of(plot, png, DivIds.next());
    }

    static String of(LinePlot plot, byte[] png, String divId) {
        if (!DivIds.isJsIdentifier(divId)) {
            throw new IllegalArgumentException("div id must be a JS identifier, got '" + divId + "'");
        }
        String alt = escapeAttribute(plot.title().isEmpty() ? "line plot" : plot.title());
        return String.format(java.util.Locale.ROOT, TEMPLATE, divId, plot.width(), alt, plot.height(),
                Base64.getEncoder().encodeToString(png), PlotlyJson.of(plot), PLOTLY_URL);
    }

    static String escapeAttribute(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
