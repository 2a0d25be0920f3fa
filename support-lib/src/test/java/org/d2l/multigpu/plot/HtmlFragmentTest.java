package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class HtmlFragmentTest {

    private static final Pattern DIV_ID = Pattern.compile("<div id=\"([^\"]+)\"");
    private static final Pattern SCRIPT = Pattern.compile("<script type=\"text/javascript\">(.*?)</script>",
            Pattern.DOTALL);
    /** Labels that break naive JS/HTML embedding: quotes, a closing script tag, backslash, line breaks. */
    private static final String NASTY = "it's \"q\" </script><b>\\ \n\u2028 & done";

    @TempDir
    Path tmp;

    static LinePlot plot(String name) {
        Table t = Table.create("m", StringColumn.create("run", name, name, name, "2 devices", "2 devices", "2 devices"),
                IntColumn.create("epoch", 1, 2, 3, 1, 2, 3),
                DoubleColumn.create("test acc", 0.5, Double.NaN, 0.7, 0.4, 0.6, 0.8));
        return LinePlot.of(t, "epoch", "test acc", "run").title("Test accuracy");
    }

    static String fragment(LinePlot plot) {
        return HtmlFragment.of(plot, plot.png());
    }

    static String divId(String html) {
        Matcher m = DIV_ID.matcher(html);
        assertTrue(m.find(), "no div with an id in " + html.substring(0, Math.min(200, html.length())));
        return m.group(1);
    }

    static String script(String html) {
        Matcher m = SCRIPT.matcher(html);
        assertTrue(m.find(), "no inline script in the fragment");
        String body = m.group(1);
        assertFalse(m.find(), "the fragment must hold exactly one inline script");
        return body;
    }

    @Test
    void divIdIsAJsIdentifierAndUniquePerFragment() {
        LinePlot plot = plot("1 device");
        String a = divId(fragment(plot));
        String b = divId(fragment(plot));
        assertTrue(a.matches("[A-Za-z_$][A-Za-z0-9_$]*"), a);
        assertFalse(a.contains("-"), a);
        assertNotEquals(a, b);
    }

    @Test
    void scriptTargetsTheDivAndEmbedsTheFallbackPng() {
        LinePlot plot = plot("1 device");
        byte[] png = plot.png();
        String html = HtmlFragment.of(plot, png);
        String id = divId(html);
        assertTrue(script(html).contains("var divId = \"" + id + "\";"));
        assertTrue(script(html).contains("document.getElementById('" + id + "')"), "Tablesaw's code targets the div");
        assertTrue(html.contains("src=\"data:image/png;base64," + Base64.getEncoder().encodeToString(png) + "\""));
        assertTrue(html.contains(HtmlFragment.PLOTLY_URL));
    }

    @Test
    void scriptParsesWithNodeEvenWithHostileLabels() throws IOException {
        NodeJs.assumeAvailable();
        for (String name : new String[] {"1 device", NASTY}) {
            Path js = tmp.resolve("fragment.js");
            Files.writeString(js, script(fragment(plot(name))));
            NodeJs.Result r = NodeJs.node("--check", js.toString());
            assertEquals(0, r.exitCode(), "node --check failed for name [" + name + "]:\n" + r.output());
        }
    }

    @Test
    void closingScriptTagInALabelCannotEndTheScriptEarly() {
        String html = fragment(plot(NASTY));
        assertEquals(1, html.split("</script>", -1).length - 1, "only the fragment's own </script> may appear");
    }

    @Test
    void withoutRequireJsTheScriptLoadsPlotlyWithAScriptElementAndDraws() throws IOException {
        String out = runInFakeBrowser("script", plot("1 device"));
        assertTrue(out.contains("\"scriptSrc\":\"" + HtmlFragment.PLOTLY_URL + "\""), out);
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
        assertTrue(out.contains("\"onTarget\":true"), out);
        assertTrue(out.contains("\"traces\":2"), out);
        assertTrue(out.contains("\"fallbackRemoved\":true"), out);
    }

    @Test
    void underRequireJsTheScriptUsesRequireAndAddsNoScriptElement() throws IOException {
        String out = runInFakeBrowser("requirejs", plot("1 device"));
        assertTrue(out.contains("\"requireDeps\":[[\"d2l_plotly\"]]"), out);
        assertTrue(out.contains("\"requirePath\":\"https://cdn.plot.ly/plotly-2.35.2.min\""), out);
        assertTrue(out.contains("\"scriptSrc\":null"), out);
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
        assertTrue(out.contains("\"onTarget\":true"), out);
    }

    @Test
    void anAmdDefineWithoutRequireIsHiddenDuringLoadingAndRestoredAfter() throws IOException {
        String out = runInFakeBrowser("script-amd", plot("1 device"));
        assertTrue(out.contains("\"defineHiddenDuringLoad\":true"), out);
        assertTrue(out.contains("\"defineRestored\":true"), out);
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
    }

    @Test
    void alreadyLoadedPlotlyIsUsedDirectly() throws IOException {
        String out = runInFakeBrowser("global", plot("1 device"));
        assertTrue(out.contains("\"scriptSrc\":null"), out);
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
    }

    @Test
    void whenPlotlyCannotLoadTheFallbackImageStaysWithAOneSentenceNote() throws IOException {
        String out = runInFakeBrowser("script-error", plot("1 device"));
        assertTrue(out.contains("\"newPlotCalls\":0"), out);
        assertTrue(out.contains("\"fallbackRemoved\":false"), out);
        // the whole note: one sentence, no URL or loader error (those go to its tooltip)
        assertTrue(out.contains("\"note\":\"Interactive figure needs internet; static image shown.\""), out);
    }

    @Test
    void hostileLabelsReachPlotlyIntactAsEntityEscapedText() throws IOException {
        String out = runInFakeBrowser("global", plot(NASTY));
        String expected = "it&#39;s &quot;q&quot; &lt;/script&gt;&lt;b&gt;     &amp; done";
        assertTrue(out.contains("\"names\":[\"" + expected + "\",\"2 devices\"]"), out);
        assertTrue(out.contains("\"y0\":[\"0.5\",\"0.7\"]"), "the NaN point is left out: " + out);
    }

    /** Runs the fragment's script in node against a minimal fake DOM and reports what it did, as JSON text. */
    private String runInFakeBrowser(String mode, LinePlot plot) throws IOException {
        NodeJs.assumeAvailable();
        String html = fragment(plot);
        Path js = tmp.resolve("fragment.js");
        Files.writeString(js, script(html));
        Path harness = tmp.resolve("harness.js");
        Files.writeString(harness, HARNESS);
        NodeJs.Result r = NodeJs.node(harness.toString(), js.toString(), mode, divId(html));
        assertEquals(0, r.exitCode(), "harness failed in mode " + mode + ":\n" + r.output());
        return r.output();
    }

    private static final String HARNESS = """
            const fs = require('fs');
            const vm = require('vm');
            const [code, mode, divId] = [fs.readFileSync(process.argv[2], 'utf8'), process.argv[3], process.argv[4]];
            function el(tag) {
              return { tagName: tag, children: [], style: {}, parentNode: null,
                appendChild(c) { c.parentNode = this; this.children.push(c); return c; },
                removeChild(c) { this.children = this.children.filter(x => x !== c); c.parentNode = null; return c; },
                querySelector(sel) { return this.children.find(c => c.tagName === 'img') || null; } };
            }
            const div = el('div');
            const img = el('img');
            div.appendChild(img);
            const head = el('head');
            const calls = [];
            const fakePlotly = { newPlot(target, data, layout, config) {
              calls.push({ target, data, layout, config }); return Promise.resolve(target); } };
            const win = { document: { head, createElement: el, getElementById: id => (id === divId ? div : null) } };
            win.window = win;
            const requireDeps = [];
            function amdDefine() {}
            amdDefine.amd = {};
            if (mode === 'global') { win.Plotly = fakePlotly; }
            if (mode === 'requirejs') {
              const req = function (deps, ok, fail) { requireDeps.push(deps); ok(fakePlotly); };
              req.config = function (c) { win.requireConfig = c; };
              win.require = req;
              win.define = amdDefine;
            }
            if (mode === 'script-amd') { win.define = amdDefine; }
            vm.createContext(win);
            vm.runInContext(code, win);
            const script = head.children.find(c => c.tagName === 'script') || null;
            let defineDuringLoad = null;
            if (mode.startsWith('script')) {
              if (!script) { throw new Error('no script element was added'); }
              defineDuringLoad = win.define;
              if (mode === 'script-error') { script.onerror(); } else { win.Plotly = fakePlotly; script.onload(); }
            }
            setTimeout(() => {
              const c = calls[0];
              const note = div.children.find(x => x.tagName === 'div');
              console.log(JSON.stringify({
                newPlotCalls: calls.length,
                onTarget: !!c && c.target === div,
                traces: c ? c.data.length : 0,
                names: c ? c.data.map(d => d.name) : null,
                y0: c ? c.data[0].y : null,
                scriptSrc: script ? script.src : null,
                requireDeps,
                requirePath: win.requireConfig ? win.requireConfig.paths.d2l_plotly : null,
                defineHiddenDuringLoad: mode === 'script-amd' ? defineDuringLoad === undefined : null,
                defineRestored: mode === 'script-amd' ? win.define === amdDefine : null,
                fallbackRemoved: !div.children.includes(img),
                note: note ? note.textContent : null }));
            }, 20);
            """;
}
