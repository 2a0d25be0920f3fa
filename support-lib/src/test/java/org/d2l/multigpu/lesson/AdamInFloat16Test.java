package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import org.d2l.multigpu.precision.PrecisionFixture;
import org.junit.jupiter.api.Test;

class AdamInFloat16Test {

    @Test
    void aGradientWhoseSquareUnderflowsGivesAnInfiniteStepAndALargeOneAFiniteStep() {
        try (NDManager m = NDManager.newBaseManager()) {
            // y = w . x with x = (1, 1e-3, 0): prediction 1 against label 0.99 gives dL/dy = 0.01 and the
            // gradients 0.01, 1e-5 and 0. In float16 0.001 x 0.01^2 = 1e-7 survives; 0.001 x (1e-5)^2 = 1e-13
            // rounds to zero while 0.1 x 1e-5 does not: infinite step; the zero gradient gives 0 / 0.
            Block net = PrecisionFixture.linear(m, 1f, 0f, 0f);
            NDArray x = m.create(new float[] {1f, 1e-3f, 0f}, new Shape(1, 3));
            NDArray y = m.create(new float[] {0.99f}, new Shape(1, 1));
            AdamInFloat16 a = AdamInFloat16.measure(net, x, y, Loss.l2Loss());
            assertEquals(0f, a.epsilonInFloat16());
            assertEquals(3, a.weights());
            assertEquals(0.5, a.zeroSecondMomentFraction(), 1e-12, a.toString());
            assertEquals(2 / 3.0, a.notFiniteFraction(), 1e-12, a.toString());
        }
    }

    @Test
    void onLeNetSomeFirstStepsAreNotFinite() {
        try (NDManager m = NDManager.newBaseManager()) {
            PrecisionFixture.NetAndBatch b = PrecisionFixture.leNetAndBatch(m, 11);
            AdamInFloat16 a = AdamInFloat16.measure(b.net(), b.x(), b.y(), Loss.softmaxCrossEntropyLoss());
            assertEquals(b.net().getParameters().stream().mapToLong(p -> p.getValue().getArray().size()).sum(), a.weights());
            assertTrue(a.notFiniteFraction() > 0, a.toString());
            assertTrue(a.toString().contains("second moment rounded to zero"), a.toString());
        }
    }
}
