package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LinePlotBuilderTest {

    private static final double[] XS = {1, 2, 3};
    private static final double[] YS = {0.5, 0.6, 0.7};

    @Test
    void buildKeepsSeriesInOrderWithTheirValues() {
        LinePlot plot = LinePlot.builder().title(" Test accuracy ").xLabel("epoch").yLabel("accuracy")
                .series("1 device", XS, YS)
                .series("2 devices", List.of(1, 2), List.of(0.4, 0.8))
                .build();
        assertEquals("Test accuracy", plot.title());
        assertEquals(List.of("1 device", "2 devices"), plot.series().stream().map(Series::name).toList());
        assertArrayEquals(new double[] {0.4, 0.8}, plot.series().get(1).y());
        assertEquals(LinePlot.DEFAULT_WIDTH, plot.width());
    }

    @Test
    void unequalLengthsAreRejectedWithBothLengthsInTheMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("loss", XS, new double[] {1, 2}));
        assertTrue(e.getMessage().contains("'loss'") && e.getMessage().contains("x has 3 values but y has 2"),
                e.getMessage());
    }

    @Test
    void unequalListLengthsAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("loss", List.of(1, 2, 3), List.of(0.1)));
        assertTrue(e.getMessage().contains("x has 3 values but y has 1"), e.getMessage());
    }

    @Test
    void blankOrNullNamesAreRejected() {
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("  ", XS, YS));
        assertTrue(blank.getMessage().contains("non-empty"), blank.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series(null, XS, YS));
        assertTrue(none.getMessage().contains("null"), none.getMessage());
    }

    @Test
    void nullArraysAndEmptySeriesAreRejected() {
        IllegalArgumentException nulls = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("acc", null, YS));
        assertTrue(nulls.getMessage().contains("must not be null"), nulls.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("acc", new double[0], new double[0]));
        assertTrue(empty.getMessage().contains("has no points"), empty.getMessage());
    }

    @Test
    void aPlotWithoutSeriesIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().title("t").build());
        assertTrue(e.getMessage().contains("at least one series"), e.getMessage());
    }

    @Test
    void duplicateSeriesNamesAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().series("gpu", XS, YS).series("gpu", XS, YS).build());
        assertTrue(e.getMessage().contains("'gpu' is used twice"), e.getMessage());
    }

    @Test
    void sizeOutsideTheAllowedRangeIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LinePlot.builder().size(100, 400));
        assertTrue(e.getMessage().contains("100x400"), e.getMessage());
    }

    @Test
    void nullListElementsBecomeGapsAndArraysAreCopied() {
        double[] ys = {1, 2, 3};
        Series fromArray = Series.of("a", XS, ys);
        ys[0] = 99;
        assertEquals(1, fromArray.y(0));
        Series fromList = Series.of("b", List.of(1, 2), Arrays.asList(0.5, null));
        assertTrue(Double.isNaN(fromList.y(1)));
        assertTrue(!fromList.isFinite(1) && fromList.isFinite(0));
    }

    @Test
    void epochSeriesCountsFromOne() {
        LinePlot plot = LinePlot.builder().series("loss", new double[] {0.9, 0.5, 0.3}).build();
        assertArrayEquals(new double[] {1, 2, 3}, plot.series().get(0).x());
    }
}
