package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LossCurvesTest {

    private final double[] one = {0.5, 0.3, 0.2, 0.15};
    private final double[] two = {0.7, 0.4, 0.25, 0.2};

    @Test
    void countsFallsAndEpochsWhereTheLargerBatchIsHigher() {
        assertEquals(3, LossCurves.falls(one));
        assertEquals(2, LossCurves.falls(new double[] {0.5, 0.6, 0.4, 0.3}));
        assertEquals(4, LossCurves.higherAtEqualEpochs(one, two));
        assertEquals(0, LossCurves.higherAtEqualEpochs(two, one));
    }

    @Test
    void pairsTheLargerBatchsEpochsToCoverTheSameSteps() {
        assertArrayEquals(new double[] {0.55, 0.225}, LossCurves.pairMeans(two), 1e-12);
        assertArrayEquals(new double[] {0.55}, LossCurves.pairMeans(new double[] {0.7, 0.4, 0.1}), 1e-12);
        assertEquals(1, LossCurves.lowerOverSameSteps(one, two)); // 0.55 above 0.5, 0.225 below 0.3
        assertEquals(0, LossCurves.lowerOverSameSteps(new double[] {0.5, 0.2}, two));
        assertEquals("Training loss over the same steps, pair 1 to 2: 1 device [0.5000, 0.3000], 2 devices "
                + "[0.5500, 0.2250]", LossCurves.overSameSteps(one, two));
    }
}
