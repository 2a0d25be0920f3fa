package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import org.d2l.multigpu.precision.PrecisionFixture;
import org.junit.jupiter.api.Test;

class LostUpdatesTest {

    @Test
    void anUpdateBelowHalfOfFloat16sSpacingIsLostAndALargerOneIsNot() {
        try (NDManager m = NDManager.newBaseManager()) {
            // y = w . x with x = (1, 1, 1) and w = (1, 1, 0.001): the prediction 2.001 against a label
            // 1.991 gives dL/dy = 0.01 and every weight the gradient 0.01. At lr 0.01 the update 1e-4 is
            // below half of float16's spacing at 1 (2^-11, 4.9e-4) and above it at 0.001 (2^-21).
            Block net = PrecisionFixture.linear(m, 1f, 1f, 0.001f);
            NDArray x = m.create(new float[] {1f, 1f, 1f}, new Shape(1, 3));
            NDArray y = m.create(new float[] {1.991f}, new Shape(1, 1));
            LostUpdates l = LostUpdates.measure(net, x, y, Loss.l2Loss(), 1f, 0.01f);
            assertEquals(3, l.weights());
            assertEquals(3, l.changed(0.01f));
            assertEquals(2 / 3.0, l.lostFraction(0.01f), 1e-12);
            assertEquals(0, l.lostFraction(1f));
            assertTrue(l.growsAsLearningRateFalls());
            assertArrayEquals(new float[] {1f, 1f, 0.001f}, net.getParameters().get(0).getValue().getArray().toFloatArray());
            assertTrue(l.toString().contains("66.7%"), l.toString());
            String weight = l.parameters().iterator().next();
            assertEquals(2 / 3.0, l.lostFraction(0.01f, weight), 1e-12);
            assertEquals(2 / 3.0, l.lostUpdateShare(0.01f), 1e-6, "three updates of the same size, two lost");
            assertEquals(0, l.lostUpdateShare(1f));
            assertArrayEquals(new double[] {0, 2 / 3.0}, l.lostFractionsAsLearningRateFalls(), 1e-12);
            assertTrue(l.byParameter().contains(weight) && l.byParameter().contains("66.7%"), l.byParameter());
        }
    }

    @Test
    void onLeNetTheLostFractionGrowsAsTheLearningRateFalls() {
        try (NDManager m = NDManager.newBaseManager()) {
            PrecisionFixture.NetAndBatch b = PrecisionFixture.leNetAndBatch(m, 11);
            LostUpdates l = LostUpdates.measure(b.net(), b.x(), b.y(), Loss.softmaxCrossEntropyLoss(), 0.5f, 0.05f, 0.005f);
            assertTrue(l.growsAsLearningRateFalls(), l.toString());
            assertTrue(l.lostFraction(0.005f) > l.lostFraction(0.5f) + 0.1, l.toString());
            assertTrue(l.changed(0.5f) > l.weights() / 3, l.toString());
        }
    }

    @Test
    void aFractionThatFallsAtASmallerLearningRateIsNotGrowth() {
        java.util.Map<Float, long[]> counts = new java.util.LinkedHashMap<>();
        counts.put(0.01f, new long[] {10, 2});
        counts.put(0.1f, new long[] {10, 5});
        assertFalse(new LostUpdates(10, counts).growsAsLearningRateFalls());
        counts.put(0.01f, new long[] {10, 5});
        assertTrue(new LostUpdates(10, counts).growsAsLearningRateFalls());
    }
}
