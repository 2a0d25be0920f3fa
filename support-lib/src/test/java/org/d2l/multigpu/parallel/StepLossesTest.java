package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StepLossesTest {

    @Test
    void stepLossesAreRecoveredFromTheRunningMeanOfTheRecordedEpochsOnly() {
        StepLosses s = StepLosses.of("run", 1);
        s.onEpochStart(1, 30);
        s.onStep(1, 10, 3.0);   // step 1: 3.0 over 10 examples
        s.onStep(1, 20, 2.0);   // step 2: (40 - 30) / 10 = 1.0
        s.onStep(1, 25, 1.8);   // step 3: (45 - 40) / 5 = 1.0
        s.onEpochStart(2, 30);
        s.onStep(2, 10, 9.0);   // not recorded
        assertArrayEquals(new double[] {3.0, 1.0, 1.0}, s.table().doubleColumn("step loss").asDoubleArray(), 1e-12);
        assertArrayEquals(new int[] {1, 2, 3}, s.table().intColumn("step").asIntArray());
        assertEquals("run", s.table().stringColumn("run").get(2));
        assertEquals(3.0, s.max(), 1e-12);
    }

    @Test
    void aRecorderNeedsANameAndAnEpoch() {
        assertThrows(IllegalArgumentException.class, () -> StepLosses.of(" ", 1));
        assertThrows(IllegalArgumentException.class, () -> StepLosses.of("run", 0));
    }
}
