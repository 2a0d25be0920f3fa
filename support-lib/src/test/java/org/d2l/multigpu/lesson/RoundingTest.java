package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class RoundingTest {

    @Test
    void oneSpacingOfTheLargestParameterIsWithinTheBound() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray before = m.create(new float[] {1f, 0.5f});
            NDArray a = m.create(new float[] {1f, 0.5f}); // no step: the bound is EPS |p| = EPS
            NDArray b = m.create(new float[] {1f, 0.5f + Math.ulp(0.5f)});
            assertEquals(0.5, Rounding.stepRatio(List.of(before), List.of(a), List.of(b), 256), 1e-12);
            assertEquals(0.0, Rounding.stepRatio(List.of(before), List.of(a), List.of(a), 256));
        }
    }

    @Test
    void theBoundGrowsWithTheRootOfTheTermsTimesTheLargestStep() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray before = m.create(new float[] {0.5f, 0f});
            NDArray a = m.create(new float[] {0.5f, 0.25f}); // largest parameter 0.5, largest step 0.25
            NDArray b = m.create(new float[] {0.5f, 0.25f + 1e-5f});
            double bound = Rounding.EPS * (0.5 + 16 * 0.25);
            assertEquals((double) (0.25f + 1e-5f) - 0.25f, Rounding.stepRatio(List.of(before), List.of(a), List.of(b), 256) * bound, 1e-12);
        }
    }

    @Test
    void aWrongStepIsFarOutsideTheBound() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray before = m.create(new float[] {0.5f});
            NDArray a = m.create(new float[] {0.49f}); // the step 0.01
            NDArray b = m.create(new float[] {0.48f}); // twice the step, as with the shard size in place of the batch size
            assertTrue(Rounding.stepRatio(List.of(before), List.of(a), List.of(b), 256) > 1000);
            NDArray zero = m.create(new float[] {0f});
            NDArray tiny = m.create(new float[] {Float.MIN_VALUE});
            assertEquals(Double.POSITIVE_INFINITY, Rounding.stepRatio(List.of(zero), List.of(zero), List.of(tiny), 256));
            assertThrows(IllegalArgumentException.class, () -> Rounding.stepRatio(List.of(zero), List.of(zero), List.of(), 1));
        }
    }

}
