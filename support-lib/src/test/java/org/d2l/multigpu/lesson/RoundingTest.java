package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class RoundingTest {

    @Test
    void differenceIsAFractionOfTheLargestStepInItsTensor() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray before = m.create(new float[] {1f, 0.5f});
            NDArray a = m.create(new float[] {0.75f, 0.5f}); // the largest step: 0.25
            NDArray b = m.create(new float[] {0.75f, 0.5f + 0.0625f}); // 0.0625 off where a did not move
            NDArray w0 = m.create(new float[] {2f});
            NDArray w1 = m.create(new float[] {1f}); // the largest step: 1
            NDArray w2 = m.create(new float[] {1.125f});
            assertEquals(0.25, Rounding.stepDifference(List.of(before), List.of(a), List.of(b)));
            assertEquals(0.25, Rounding.stepDifference(List.of(before, w0), List.of(a, w1), List.of(b, w2)));
            assertEquals(0.0, Rounding.stepDifference(List.of(before), List.of(a), List.of(a)));
        }
    }

    @Test
    void aDifferenceWhereNothingMovedIsInfinite() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray zero = m.create(new float[] {0f});
            NDArray tiny = m.create(new float[] {Float.MIN_VALUE});
            assertEquals(Double.POSITIVE_INFINITY, Rounding.stepDifference(List.of(zero), List.of(zero), List.of(tiny)));
            assertThrows(IllegalArgumentException.class, () -> Rounding.stepDifference(List.of(zero), List.of(zero), List.of()));
        }
    }

    @Test
    void sumToleranceGrowsWithTheRootOfTheTerms() {
        assertEquals(Math.ulp(1f), Rounding.sumTolerance(1));
        assertEquals(4 * Math.ulp(1f), Rounding.sumTolerance(16));
        assertThrows(IllegalArgumentException.class, () -> Rounding.sumTolerance(0));
    }
}
