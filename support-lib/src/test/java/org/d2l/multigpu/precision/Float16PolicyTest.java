package org.d2l.multigpu.precision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.norm.BatchNorm;
import java.util.List;
import java.util.Set;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;
import org.d2l.multigpu.lesson.Float16;

class Float16PolicyTest {

    private static List<NDArray> float16(NDManager m, float[]... values) {
        return java.util.Arrays.stream(values).map(v -> m.create(v).toType(DataType.FLOAT16, false)
                .toType(DataType.FLOAT32, false)).toList();
    }

    @Test
    void oneReductionFindsAnInfinityOrNaNInAnyArray() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            float inf = Float.POSITIVE_INFINITY;
            assertTrue(Float16Policy.allFinite(float16(m, new float[] {1, 2}, new float[] {3}), m));
            assertFalse(Float16Policy.allFinite(float16(m, new float[] {1, 2}, new float[] {3, inf}), m));
            assertFalse(Float16Policy.allFinite(float16(m, new float[] {Float.NaN}, new float[] {3}), m));
            // +inf in one array and -inf in another add up to NaN: still found
            assertFalse(Float16Policy.allFinite(float16(m, new float[] {inf}, new float[] {-inf}), m));
            assertTrue(Float16Policy.allFinite(List.of(), m));
        }
    }

    @Test
    void aMillionOfFloat16sLargestValueAddsUpToAFiniteNumber() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray big = m.full(new Shape(1_000_000), Float16.MAX);
            assertTrue(Float16Policy.allFinite(List.of(big, big.neg()), m));
        }
    }

    @Test
    void theParametersOfEveryBatchNormInsideTheBlockAreFound() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = new SequentialBlock()
                    .add(Conv2d.builder().setFilters(2).setKernelShape(new Shape(3, 3)).build())
                    .add(new SequentialBlock().add(BatchNorm.builder().build()).add(Activation::relu));
            net.initialize(m, DataType.FLOAT32, new Shape(1, 1, 6, 6));
            Set<String> ids = Float16Policy.batchNormParameters(net);
            assertEquals(4, ids.size(), "gamma, beta, running mean, running variance");
            net.getParameters().forEach(p -> assertEquals(p.getKey().contains("BatchNorm"),
                    ids.contains(p.getValue().getId()), p.getKey()));
            Block resnet = ResNet.resnet18(10, 1);
            resnet.initialize(m, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            long batchNorms = resnet.getParameters().keys().stream().filter(k -> k.contains("BatchNorm")).count();
            assertEquals(batchNorms, Float16Policy.batchNormParameters(resnet).size());
            assertTrue(batchNorms > 0);
        }
    }
}
