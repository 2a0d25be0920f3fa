package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import javax.imageio.ImageIO;
import org.d2l.multigpu.eval.MetricsTable;
import org.d2l.multigpu.loop.EpochMetrics;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class LinePlotTest {

    @Test
    void pngDecodesWithTheRequestedSize() throws IOException {
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(HtmlFragmentTest.plot("1 device").size(500, 300).png()));
        assertEquals(500, img.getWidth());
        assertEquals(300, img.getHeight());
    }

    @Test
    void oneLinePerRunInOrderOfFirstAppearanceWithoutNaNPoints() {
        var lines = HtmlFragmentTest.plot("1 device").lines();
        assertEquals(List.of("1 device", "2 devices"), List.copyOf(lines.keySet()));
        assertEquals(List.of(1.0, 3.0), java.util.Arrays.stream(lines.get("1 device")[0]).boxed().toList());
        assertEquals(2, HtmlFragmentTest.plot("1 device").figure().getTraces().length);
    }

    @Test
    void aGuideIsADashedLineWithoutMarkersAndTheDataKeepTheirMarkers() {
        LinePlot p = HtmlFragmentTest.plot("1 device").guides("2 devices");
        String js = p.figure().asJavascript("plot");
        assertTrue(js.contains("dash") && js.contains("lines+markers"), js);
        var series = p.chart().getSeriesMap();
        assertEquals(org.knowm.xchart.style.markers.SeriesMarkers.NONE, series.get("2 devices").getMarker());
        assertTrue(series.get("1 device").getMarker() == null
                || series.get("1 device").getMarker() != org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        assertEquals(p, p.guides("2 devices"));
    }

    @Test
    void yFromZeroStartsBothImagesAxesAtZeroAndRefusesNegativeValues() {
        LinePlot p = HtmlFragmentTest.plot("1 device").yFromZero();
        assertEquals(0.0, p.chart().getStyler().getYAxisMin());
        assertTrue(p.figure().asJavascript("plot").contains("range"), "the plotly y axis gets a range from 0");
        assertEquals(null, HtmlFragmentTest.plot("1 device").chart().getStyler().getYAxisMin());
        Table negative = Table.create("t", tech.tablesaw.api.DoubleColumn.create("x", 1, 2),
                tech.tablesaw.api.DoubleColumn.create("y", -1, 1));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> LinePlot.of(negative, "x", "y", null).yFromZero());
        assertTrue(e.getMessage().contains("at least 0"), e.getMessage());
    }

    @Test
    void aMetricsTableWithoutRowsStillGivesAPng() throws IOException {
        Table empty = MetricsTable.of("1 device", List.<EpochMetrics>of());
        byte[] png = LinePlot.of(empty, "epoch", "test acc", "run").png();
        assertEquals(640, ImageIO.read(new ByteArrayInputStream(png)).getWidth());
    }

    @Test
    void anUnknownColumnIsRefusedWithTheColumnsThereAre() {
        Table t = MetricsTable.of("1 device", List.of());
        var e = assertThrows(IllegalArgumentException.class, () -> LinePlot.of(t, "epoch", "accuracy", "run"));
        assertTrue(e.getMessage().contains("'accuracy'") && e.getMessage().contains("test acc"), e.getMessage());
    }

    @Test
    void aLongTitleBesideLongRunNamesIsDrawnWholeInsteadOfCutAtTheLeftEdge() throws IOException {
        Table t = Table.create(DoubleColumn.create("step", 12, 24, 24, 48),
                DoubleColumn.create("test acc", 0.1, 0.3, 0.28, 0.47),
                StringColumn.create("run", "2 devices, batch 512, lr 0.2, warm-up", "2 devices, batch 512, lr 0.2, warm-up",
                        "1 device, seed 42", "1 device, seed 42"));
        LinePlot p = LinePlot.of(t, "step", "test acc", "run").title("ResNet-18: batch 256 on 1 device vs batch 512 on 2 devices");
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(p.png()));
        int white = 0xffffffff;
        boolean titleDrawn = false;
        for (int row = 0; row < 40; row++) {
            for (int col = 0; col < 3; col++) {
                assertEquals(white, img.getRGB(col, row), "title pixel at the left edge, row " + row + ": the title is cut");
            }
            for (int col = 0; col < img.getWidth(); col++) {
                titleDrawn |= img.getRGB(col, row) != white;
            }
        }
        assertTrue(titleDrawn, "no title drawn in the top 40 rows");
    }

    @Test
    void aShortTitleKeepsTheLegendRightOfThePlot() {
        assertEquals(org.knowm.xchart.style.Styler.LegendPosition.OutsideE,
                HtmlFragmentTest.plot("1 device").title("test acc").chart().getStyler().getLegendPosition());
    }

    @Test
    void aLogXAxisDrawsEqualRatiosEquallyFarApartAndLabelsWholePowers() {
        Table t = Table.create(DoubleColumn.create("k", 1, 2, 4, 8), DoubleColumn.create("MB", 2.0, 1.0, 0.5, 0.25));
        LinePlot p = LinePlot.of(t, "k", "MB", null).logX();
        org.junit.jupiter.api.Assertions.assertArrayEquals(new double[] {0, 1, 2, 3},
                p.chart().getSeriesMap().get("MB").getXData(), 1e-12);
        assertEquals("8", LinePlot.logTickLabel(3, 2));
        assertEquals("", LinePlot.logTickLabel(2.5, 2), "no label between whole powers");
        assertEquals("100,000", LinePlot.logTickLabel(5, 10));
        assertTrue(p.figure().asJavascript("plot").contains("log"), "the plotly axis is a log axis");
        assertEquals(p, p.title(p.title()).logX(), "the option survives the other options");
        Table many = Table.create(DoubleColumn.create("k", 1, 1e6), DoubleColumn.create("MB", 1, 2));
        org.junit.jupiter.api.Assertions.assertArrayEquals(new double[] {0, 6},
                LinePlot.of(many, "k", "MB", null).logX().chart().getSeriesMap().get("MB").getXData(), 1e-12);
    }

    @Test
    void aLogXAxisRefusesValuesThatAreNotPositive() {
        Table t = Table.create(DoubleColumn.create("k", 0, 1), DoubleColumn.create("MB", 1, 2));
        var e = assertThrows(IllegalArgumentException.class, () -> LinePlot.of(t, "k", "MB", null).logX());
        assertTrue(e.getMessage().contains("positive"), e.getMessage());
    }
}
