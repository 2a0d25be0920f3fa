package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;
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

    @Test
    void stepsAreLaidOneAfterAnotherOneBoxPerReplicaAndPhase() throws InterruptedException {
        StepPhases first = new StepPhases(2);
        first.add(0, 2, Phase.FORWARD, StepPhases.now());
        Thread.sleep(3);
        StepPhases second = new StepPhases(2);
        second.add(1, Phase.UPDATE, StepPhases.now());
        SchedulePlot plot = SchedulePlot.ofSteps(List.of(first, second), "steps");
        assertEquals(List.of("replica 0", "replica 1"), plot.rows());
        assertEquals(3, plot.boxes().size());
        SchedulePlot.Box update = plot.boxes().get(2);
        assertEquals(1, update.row());
        assertEquals("update", update.kind());
        assertTrue(update.start() >= 3, "the second step starts 3 ms after the first: " + update);
    }
}
