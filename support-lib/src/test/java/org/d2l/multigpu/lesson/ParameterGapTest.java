package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.core.Linear;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ParameterGapTest {

    private static Block linear(NDManager m, int units) {
        Block net = Linear.builder().setUnits(units).build();
        net.initialize(m, DataType.FLOAT32, new Shape(1, 3));
        return net;
    }

    @Test
    void theLargestDifferenceOfAnyParameterIsReported() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block a = linear(m, 2), b = linear(m, 2);
            b.getParameters().valueAt(0).getArray().set(a.getParameters().valueAt(0).getArray().toFloatArray());
            b.getParameters().valueAt(1).getArray().set(new float[] {0.5f, -0.25f});
            a.getParameters().valueAt(1).getArray().set(new float[] {0f, 0f});
            assertEquals(0.5, ParameterGap.largest(a, b));
            assertEquals(0.0, ParameterGap.largest(a, a));
            float[] w = a.getParameters().valueAt(0).getArray().toFloatArray();
            double normA = 0;
            for (float v : w) {
                normA += v * (double) v;
            }
            double expected = Math.sqrt((0.5 * 0.5 + 0.25 * 0.25) / normA); // the weights agree, the bias does not
            assertEquals(expected, ParameterGap.relative(a, b), 1e-6 * expected);
        }
    }

    @Test
    void networksOfOtherShapesAreRefused() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            assertThrows(IllegalArgumentException.class, () -> ParameterGap.largest(linear(m, 2), linear(m, 3)));
        }
    }
}
