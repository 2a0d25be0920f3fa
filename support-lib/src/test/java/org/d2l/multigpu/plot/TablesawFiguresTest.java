package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.plotly.components.Figure;

class TablesawFiguresTest {

    @TempDir
    Path tmp;

    @Test
    void figureHasOneTracePerSeries() {
        Figure f = HtmlFragmentTest.plot("1 device").figure();
        assertEquals(2, f.getTraces().length);
    }

    @Test
    void tablesawJavascriptParsesEvenWithHostileLabels() throws IOException {
        NodeJs.assumeAvailable();
        Figure f = HtmlFragmentTest.plot("C:\\users\\ 'quote'\nnew line \\").figure();
        String js = f.asJavascript(DivIds.next())
                .replaceFirst("(?s)^\\s*<script>", "").replaceFirst("(?s)</script>\\s*$", "");
        Path file = tmp.resolve("tablesaw.js");
        Files.writeString(file, js);
        NodeJs.Result r = NodeJs.node("--check", file.toString());
        assertEquals(0, r.exitCode(), r.output() + "\n" + js);
    }

    @Test
    void nonFinitePointsAreLeftOutBecauseTablesawWritesThemAsStrings() {
        String js = HtmlFragmentTest.plot("1 device").figure().asJavascript("plot_x");
        assertFalse(js.contains("NaN"), js);
        assertTrue(js.contains("\"0.5\",\"0.7\""), js);
    }
}
