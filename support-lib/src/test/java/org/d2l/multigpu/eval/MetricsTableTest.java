package org.d2l.multigpu.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.d2l.multigpu.loop.EpochMetrics;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

class MetricsTableTest {

    static List<EpochMetrics> history(double... testAcc) {
        List<EpochMetrics> h = new java.util.ArrayList<>();
        for (int i = 0; i < testAcc.length; i++) {
            h.add(new EpochMetrics(i + 1, 1.0 / (i + 1), 0.5, testAcc[i], 10, 100, 3, 2_500_000, 0, Double.NaN, 4, List.of(), Double.NaN));
        }
        return h;
    }

    @Test
    void oneRunHasTheRunAndEpochColumnsThenEveryMetricAndOneRowPerEpoch() {
        Table t = MetricsTable.of("1 device", history(0.3, 0.6, 0.7));
        assertEquals(List.of("run", "epoch", "train loss", "train acc", "test acc", "seconds", "examples/s",
                "steps", "median step s", "syncs", "MB synced"), t.columnNames());
        assertEquals(3, t.rowCount());
        assertEquals("1 device", t.stringColumn("run").get(2));
        assertEquals(3, t.intColumn("epoch").get(2));
        assertEquals(0.6, t.doubleColumn("test acc").get(1));
        assertEquals(0.5, t.doubleColumn("train loss").get(1));
        assertEquals(4, t.doubleColumn("steps").get(0));
        assertEquals(3, t.doubleColumn("syncs").get(0));
        assertEquals(2.5, t.doubleColumn("MB synced").get(0));
    }

    @Test
    void printedTablesShowRoundedMetricsEvenAfterSelectingRows() {
        Table all = MetricsTable.concat(MetricsTable.of("a", history(0.1234567, 0.2)), MetricsTable.of("b", history(0.3)));
        String printed = all.where(all.intColumn("epoch").isEqualTo(1)).selectColumns("run", "test acc", "MB synced").print();
        assertEquals(true, printed.contains("0.123") && !printed.contains("0.1234"), printed);
        assertEquals(true, printed.contains("2.5"), printed);
    }

    @Test
    void concatenatedRunsKeepTheirRowsInOrderWithTheirNames() {
        Table t = MetricsTable.concat(MetricsTable.of("a", history(0.1, 0.2)), MetricsTable.of("b", history(0.3)));
        assertEquals(3, t.rowCount());
        assertEquals(List.of("a", "a", "b"), t.stringColumn("run").asList());
        assertEquals(List.of(1, 2, 1), t.intColumn("epoch").asList());
    }

    @Test
    void anUnknownMetricNameIsRefusedWithTheKnownNames() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> MetricsTable.value("accuracy", history(0.1).get(0)));
        assertEquals(true, e.getMessage().contains("test acc"), e.getMessage());
    }
}
