package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the fragment's loader against the real RequireJS (as the classic Notebook has it) and without it (as in
 * JupyterLab), in node with a small fake DOM whose script elements "load" a UMD module shaped like plotly.js.
 */
class RealRequireJsTest {

    /** Debian's libjs-requirejs, installed with jupyter-notebook. */
    private static final Path REQUIRE_JS = Path.of("/usr/share/javascript/requirejs/require.js");

    @TempDir
    Path tmp;

    @Test
    void classicNotebookWithRequireJsLoadsPlotlyAsAnAmdModuleAndDraws() throws IOException {
        String out = run("requirejs");
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
        assertTrue(out.contains("\"loaded\":[\"https://cdn.plot.ly/plotly-2.35.2.min.js\"]"), out);
        assertTrue(out.contains("\"errors\":[]"), out);
    }

    @Test
    void aPlainScriptTagUnderRequireJsIsTheKnownConflict() throws IOException {
        String out = run("naive-script");
        assertTrue(out.contains("Mismatched anonymous define()"), "control case should reproduce the conflict: " + out);
    }

    @Test
    void jupyterLabWithoutRequireJsLoadsPlotlyAsAGlobalAndDraws() throws IOException {
        String out = run("lab");
        assertTrue(out.contains("\"newPlotCalls\":1"), out);
        assertTrue(out.contains("\"loaded\":[\"https://cdn.plot.ly/plotly-2.35.2.min.js\"]"), out);
        assertTrue(out.contains("\"errors\":[]"), out);
    }

    @Test
    void twoFiguresInOnePageLoadPlotlyOnce() throws IOException {
        String out = run("lab-twice");
        assertTrue(out.contains("\"newPlotCalls\":2"), out);
        assertTrue(out.contains("\"loaded\":[\"https://cdn.plot.ly/plotly-2.35.2.min.js\"]"), out);
    }

    private String run(String mode) throws IOException {
        NodeJs.assumeAvailable();
        assumeTrue(Files.isRegularFile(REQUIRE_JS), REQUIRE_JS + " not installed: real RequireJS checks skipped");
        LinePlot plot = HtmlFragmentTest.plot("1 device");
        String first = HtmlFragmentTest.fragment(plot);
        String second = HtmlFragmentTest.fragment(plot);
        Path a = Files.writeString(tmp.resolve("a.js"), HtmlFragmentTest.script(first));
        Path b = Files.writeString(tmp.resolve("b.js"), HtmlFragmentTest.script(second));
        Path harness = Files.writeString(tmp.resolve("harness.js"), HARNESS);
        NodeJs.Result r = NodeJs.node(harness.toString(), REQUIRE_JS.toString(), mode, a.toString(),
                HtmlFragmentTest.divId(first), b.toString(), HtmlFragmentTest.divId(second));
        assertEquals(0, r.exitCode(), "harness failed in mode " + mode + ":\n" + r.output());
        return r.output();
    }

    private static final String HARNESS = """
            const fs = require('fs');
            const vm = require('vm');
            const [requireJs, mode, codeA, idA, codeB, idB] = process.argv.slice(2);
            const calls = [], loaded = [], errors = [];
            // What the CDN would serve: a UMD bundle like plotly.js (AMD if define.amd, else a global).
            const UMD = "(function (root, factory) {" +
              " if (typeof define === 'function' && define.amd) { define([], factory); }" +
              " else { root.Plotly = factory(); } })(this, function () { return {" +
              " newPlot: function (div, data) { __calls.push(div.id); return Promise.resolve(div); } }; });";
            function el(tag) {
              const listeners = {};
              const attrs = {};
              return { tagName: tag.toUpperCase(), children: [], style: {}, parentNode: null, attrs,
                setAttribute(k, v) { attrs[k] = String(v); }, getAttribute(k) { return attrs[k]; },
                addEventListener(t, f) { (listeners[t] = listeners[t] || []).push(f); },
                removeEventListener(t, f) { listeners[t] = (listeners[t] || []).filter(x => x !== f); },
                fire(t) { const ev = { type: t, currentTarget: this, srcElement: this };
                  (listeners[t] || []).slice().forEach(f => f(ev)); if (this['on' + t]) { this['on' + t](ev); } },
                appendChild(c) { c.parentNode = this; this.children.push(c); if (c.tagName === 'SCRIPT' && c.src) { load(c); } return c; },
                removeChild(c) { this.children = this.children.filter(x => x !== c); c.parentNode = null; return c; },
                querySelector() { return this.children.find(c => c.tagName === 'IMG') || null; } };
            }
            const head = el('head');
            const divs = {};
            [idA, idB].forEach(id => { const d = el('div'); d.id = id; d.appendChild(el('img')); divs[id] = d; });
            const doc = { head, createElement: el, getElementById: id => divs[id] || null,
              getElementsByTagName: t => (t === 'head' ? [head] : t === 'script' ? head.children.filter(c => c.tagName === 'SCRIPT') : []) };
            const win = { document: doc, navigator: { userAgent: 'node', platform: 'node' }, __calls: calls,
              setTimeout, clearTimeout, console, Promise };
            win.window = win;
            win.self = win;
            vm.createContext(win);
            function load(script) {
              setTimeout(() => {
                loaded.push(script.src);
                try { vm.runInContext(UMD, win); } catch (e) { errors.push(String(e)); }
                script.fire('load');
              }, 5);
            }
            win.onerror = e => errors.push(String(e));
            if (mode === 'requirejs' || mode === 'naive-script') {
              vm.runInContext(fs.readFileSync(requireJs, 'utf8'), win);
              win.requirejs.onError = e => errors.push(String(e.message || e));
            }
            if (mode === 'naive-script') {
              // What a plain <script src=plotly> does in the classic Notebook: plotly calls the anonymous define.
              try { vm.runInContext(UMD, win); } catch (e) { errors.push(String(e.message || e)); }
            } else {
              vm.runInContext(fs.readFileSync(codeA, 'utf8'), win);
              if (mode === 'lab-twice') { vm.runInContext(fs.readFileSync(codeB, 'utf8'), win); }
            }
            // Report once the expected figures are drawn (or an error came, or 20 s passed): no fixed wait,
            // so a busy machine does not fail the check.
            const expected = mode === 'naive-script' ? 0 : mode === 'lab-twice' ? 2 : 1;
            const deadline = Date.now() + 20000;
            (function report() {
              if (calls.length < expected && errors.length === 0 && Date.now() < deadline) { setTimeout(report, 20); return; }
              setTimeout(() => {
                console.log(JSON.stringify({ newPlotCalls: calls.length, targets: calls, loaded, errors }));
              }, 50);
            })();
            """;
}
