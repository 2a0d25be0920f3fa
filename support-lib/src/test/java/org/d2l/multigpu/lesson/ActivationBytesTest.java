package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class ActivationBytesTest {

    @Test
    void leNetsLayerOutputsAddUpFromTheirShapesAndHalveInFloat16() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            Block net = LeNet.block();
            net.initialize(m, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            NDArray x = m.randomUniform(0, 1, new Shape(8, 1, 28, 28));
            // conv 20x26x26, relu, pool 20x13x13, conv 50x9x9, relu, pool 50x4x4, flatten 800, dense 128, relu, dense 10
            long perExample = 2 * 20 * 26 * 26 + 20 * 13 * 13 + 2 * 50 * 9 * 9 + 50 * 4 * 4 + 800 + 2 * 128 + 10;
            long f32 = ActivationBytes.of(net, ReplicaStore.of(net, m), x);
            assertEquals(8 * perExample * 4, f32);
            ReplicaStore half = ReplicaStore.copyOf(net, Device.cpu(), m, false, DataType.FLOAT16);
            assertEquals(f32 / 2, ActivationBytes.of(net, half, x));
        }
    }
}
