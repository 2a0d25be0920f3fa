package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalarsTest {

    /**
     * Between the forward and the backward pass the collector frees every unreachable Java buffer and new
     * buffers of the same sizes, filled with NaN, take their memory: a scalar over a Java buffer (DJL's
     * {@code mul(3.0)}) gives a NaN gradient here; one from {@link Scalars#of} must give exactly 3.
     */
    @Test
    void aScalarKeepsItsValueForTheBackwardPassAfterJavaBuffersAreFreedAndTheirMemoryReused() throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            for (DataType type : List.of(DataType.FLOAT32, DataType.FLOAT64)) {
                for (int attempt = 0; attempt < 5; attempt++) {
                    NDArray x = m.ones(new Shape(4), type);
                    x.setRequiresGradient(true);
                    try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                        NDArray three = Scalars.of(x, 3);
                        assertEquals(type, three.getDataType());
                        NDArray y = x.mul(three);
                        List<ByteBuffer> reuse = JavaBuffers.freeAndReuseWithNaN();
                        gc.backward(y.sum());
                        assertEquals(1000, reuse.size());
                    }
                    assertArrayEquals(new double[] {3, 3, 3, 3}, x.getGradient().toType(DataType.FLOAT64, false)
                            .toDoubleArray(), type + ", attempt " + attempt);
                }
            }
        }
    }
}
