package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchedulePlotTest {

    @Test
    void rowsAreNamedAtTheirTicksFirstRowOnTop() {
        List<String> rows = List.of("stage 0", "stage 1", "stage 2");
        assertEquals("stage 2", SchedulePlot.tickLabel(rows, 0.0));
        assertEquals("stage 1", SchedulePlot.tickLabel(rows, 1.0));
        assertEquals("stage 0", SchedulePlot.tickLabel(rows, 2.0));
    }

    @Test
    void noTwoTickLabelsAreEqualSoXChartKeepsThem() {
        List<String> rows = List.of("stage 0", "stage 1");
        Set<String> labels = new HashSet<>();
        int ticks = 0;
        for (double v = -1; v <= 2.5; v += 0.1) {
            labels.add(SchedulePlot.tickLabel(rows, Math.round(v * 10) / 10.0));
            ticks++;
        }
        assertEquals(ticks, labels.size());
    }
}
