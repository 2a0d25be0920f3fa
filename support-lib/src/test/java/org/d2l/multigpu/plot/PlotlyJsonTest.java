package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PlotlyJsonTest {

    @Test
    void stringsAreEscapedForJsonAndCannotCloseAScript() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u003c/script\\u003e\\u2028\"", PlotlyJson.string("a\"b\\c\nd</script>\u2028"));
    }

    @Test
    void plotlyTextTurnsMarkupIntoEntities() {
        assertEquals("\"x \\u0026lt;b\\u0026gt; \\u0026amp;\"", PlotlyJson.text("x <b> &"));
    }

    @Test
    void nonFiniteValuesBecomeNullAndWholeNumbersStayShort() {
        LinePlot plot = LinePlot.builder().series("s", new double[] {1, 2, 3},
                new double[] {Double.NaN, Double.POSITIVE_INFINITY, 0.25}).build();
        String json = PlotlyJson.of(plot);
        assertTrue(json.contains("\"x\":[1,2,3],\"y\":[null,null,0.25]"), json);
    }

    @Test
    void epochAxesTickEveryWholeEpochButFractionalAxesAreLeftToPlotly() {
        LinePlot epochs = LinePlot.builder().series("s", new double[] {0.5, 0.6, 0.7, 0.8}).build();
        LinePlot fractional = LinePlot.builder()
                .series("s", new double[] {0.5, 1.5}, new double[] {1, 2}).build();
        assertTrue(PlotlyJson.of(epochs).contains("\"dtick\":1"));
        assertFalse(PlotlyJson.of(fractional).contains("dtick"));
    }
}
