package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

class PointsTest {

    @Test
    void pointsKeepTheirSeriesAndOrderAndPlotYAgainstX() {
        Points p = Points.of("step", "loss", "run").add("a", 1, 2.5).add("b", 1, 2.0).add("a", 2, 1.5);
        Table t = p.table();
        assertEquals(3, t.rowCount());
        assertEquals(1.5, t.doubleColumn("loss").get(2));
        assertEquals("b", t.stringColumn("run").get(1));
        LinePlot plot = p.plot();
        assertEquals("step", plot.x());
        assertEquals("loss", plot.y());
        assertEquals("run", plot.group());
    }

    @Test
    void columnsWithTheSameNameAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Points.of("x", "x", "run"));
    }
}
