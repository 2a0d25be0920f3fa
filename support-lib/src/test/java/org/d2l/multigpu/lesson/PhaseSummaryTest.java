package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;
import org.junit.jupiter.api.Test;

class PhaseSummaryTest {

    private static Object sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /** Replica 0's forward and backward, then replica 1's: replicas that take turns. */
    private static StepPhases turns() {
        StepPhases s = new StepPhases(2);
        for (int r = 0; r < 2; r++) {
            s.time(r, Phase.FORWARD, () -> sleep(5));
            s.time(r, Phase.BACKWARD, () -> sleep(10));
        }
        s.time(0, Phase.SYNC, () -> sleep(2));
        return s;
    }

    @Test
    void replicasThatTakeTurnsLeaveAGapAndWouldSaveOneReplicasWorkAtOnce() {
        PhaseSummary p = PhaseSummary.of(List.of(turns())); // one step: its means are its own values
        assertTrue(p.turnGapMs() >= 0, "gap " + p.turnGapMs());
        assertTrue(p.phaseMs()[1][Phase.BACKWARD.ordinal()] >= 10, p.describe());
        assertTrue(p.syncMs() >= 2, p.describe());
        double work1 = p.phaseMs()[1][Phase.FORWARD.ordinal()] + p.phaseMs()[1][Phase.BACKWARD.ordinal()];
        assertTrue(Math.abs(p.stepMs() - p.atOnceMs() - Math.min(work1,
                p.phaseMs()[0][Phase.FORWARD.ordinal()] + p.phaseMs()[0][Phase.BACKWARD.ordinal()])) < 1e-9, p.describe());
        assertEquals(3, p.describe().lines().count(), p.describe());
        assertTrue(PhaseSummary.of(List.of(turns(), turns())).turnGapMs() >= 0);
    }

    @Test
    void overlappingReplicasHaveANegativeGap() {
        StepPhases s = new StepPhases(2);
        long start = StepPhases.now();
        sleep(5);
        s.add(0, 2, Phase.FORWARD, start);
        s.time(0, Phase.BACKWARD, () -> sleep(2));
        assertTrue(PhaseSummary.of(List.of(s)).turnGapMs() < 0);
    }

    @Test
    void oneReplicaIsAnErrorThatSaysSo() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PhaseSummary.of(List.of(new StepPhases(1))));
        assertTrue(e.getMessage().contains("two replicas"), e.getMessage());
    }
}
