package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import org.junit.jupiter.api.Test;

class ErrorBoundTest {

    @Test
    void gammaIsNuOverOneMinusNu() {
        assertEquals(3 * ErrorBound.FLOAT32_U / (1 - 3 * ErrorBound.FLOAT32_U), ErrorBound.gamma(3, ErrorBound.FLOAT32_U));
        assertEquals(Double.POSITIVE_INFINITY, ErrorBound.gamma(1L << 24, ErrorBound.FLOAT32_U));
    }

    @Test
    void aFloat32SumWithinTheBoundPassesAndOneBeyondItOrANaNFails() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            // 1 + 2^-24 + 2^-24 summed left to right in float32 loses both small terms: error 2^-23, within gamma(3) * 1.
            NDArray exact = m.create(new double[] {1 + Math.scalb(1.0, -23), 2.0, 3.0});
            NDArray bound = ErrorBound.ofSums(3, m.create(new double[] {1 + Math.scalb(1.0, -23), 2.0, 3.0}));
            NDArray got = m.create(new float[] {1f, 2f, 3f});
            assertArrayEquals(new double[] {0, 0}, java.util.Arrays.copyOf(ErrorBound.compare(got, exact, bound), 2));
            double over = 3 + bound.toDoubleArray()[2] * 1.01;
            NDArray wrong = m.create(new double[] {1, 2, over}).toType(DataType.FLOAT64, false);
            NDArray nan = m.create(new float[] {Float.NaN, 2f, 3f});
            assertEquals(1, ErrorBound.compare(wrong, exact, bound)[0]);
            assertArrayEquals(new double[] {1, 1}, java.util.Arrays.copyOf(ErrorBound.compare(nan, exact, bound), 2));
        }
    }
}
