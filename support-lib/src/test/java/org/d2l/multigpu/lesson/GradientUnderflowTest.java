package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import org.d2l.multigpu.precision.PrecisionFixture;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

class GradientUnderflowTest {

    @Test
    void aTinyGradientFlushesToZeroAtScaleOneAndSurvivesAtTwoToTheSixteen() {
        try (NDManager m = NDManager.newBaseManager()) {
            // w = 0, so the prediction is 0 and dL/dy = -1e-5 (L2 loss 0.5 (y - 1e-5)^2); the gradient of
            // weight j is -1e-5 x_j: -1e-8 flushes to zero in float16, -1e-5 and -5e-6 are subnormal.
            Block net = PrecisionFixture.linear(m, 0f, 0f, 0f);
            NDArray x = m.create(new float[] {1e-3f, 1f, 0.5f}, new Shape(1, 3));
            NDArray y = m.create(new float[] {1e-5f}, new Shape(1, 1));
            GradientUnderflow u = GradientUnderflow.measure(net, x, y, Loss.l2Loss(), 1f, 65536f);
            assertEquals(3, u.elements());
            assertEquals(3, u.nonZero());
            assertEquals(1 / 3.0, u.flushedFraction(1f), 1e-12);
            assertEquals(2 / 3.0, u.subnormalFraction(1f), 1e-12);
            assertEquals(0, u.flushedFraction(65536f));
            assertEquals(0, u.subnormalFraction(65536f));
            assertEquals(1e-5, u.largest(), 1e-10);
            assertTrue(u.toString().contains("2^16"), u.toString());
            // the block's own weights are untouched
            assertArrayEquals(new float[] {0, 0, 0}, net.getParameters().get(0).getValue().getArray().toFloatArray());
        }
    }

    @Test
    void onLeNetScalingTheLossFlushesFewerElementsAndTheHistogramCountsEveryNonZeroElement() {
        try (NDManager m = NDManager.newBaseManager()) {
            PrecisionFixture.NetAndBatch b = PrecisionFixture.leNetAndBatch(m, 7);
            GradientUnderflow u = GradientUnderflow.measure(b.net(), b.x(), b.y(), Loss.softmaxCrossEntropyLoss(), 1f, 65536f);
            assertTrue(u.flushedFraction(65536f) < u.flushedFraction(1f),
                    "scaling should save gradients: " + u);
            assertTrue(u.subnormalFraction(65536f) < u.subnormalFraction(1f), u.toString());
            Table h = u.histogram();
            double atOne = h.where(h.stringColumn("series").isEqualTo("float32 gradient x 1"))
                    .doubleColumn("elements").sum();
            assertEquals(u.nonZero(), atOne, 0.0);
            assertEquals(2, h.where(h.stringColumn("series").startsWith("float16 smallest normal")).rowCount());
            assertEquals(Math.log10(65504), h.where(h.stringColumn("series").startsWith("float16 largest"))
                    .doubleColumn("log10 |gradient|").get(0), 1e-6);
            for (String limit : GradientUnderflow.limitNames()) {
                assertEquals(2, h.where(h.stringColumn("series").isEqualTo(limit)).rowCount(), limit);
            }
            assertThrows(IllegalArgumentException.class, () -> u.flushedFraction(2f));
        }
    }

    @Test
    void scalesMustBePositiveAndFinite() {
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = PrecisionFixture.linear(m, 1f);
            NDArray x = m.create(new float[] {1f}, new Shape(1, 1));
            assertThrows(IllegalArgumentException.class, () -> GradientUnderflow.measure(net, x, x, Loss.l2Loss()));
            assertThrows(IllegalArgumentException.class, () -> GradientUnderflow.measure(net, x, x, Loss.l2Loss(), 0f));
        }
    }

    @Test
    void scalesThatArePowersOfTwoAreNamedSo() {
        assertEquals("1", GradientUnderflow.scaleName(1f));
        assertEquals("2^16", GradientUnderflow.scaleName(65536f));
        assertEquals("2^-3", GradientUnderflow.scaleName(0.125f));
        assertEquals("1000.00", GradientUnderflow.scaleName(1000f));
    }
}
