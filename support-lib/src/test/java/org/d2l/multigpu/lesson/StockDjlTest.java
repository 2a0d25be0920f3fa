package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.loss.Loss;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import java.util.List;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class StockDjlTest {

    @Test
    void djlsGradientSumMultipliesTheLearningRateByTheDeviceCount() {
        assertEquals(0.05f, StockDjl.effectiveLearningRateFix(0.2f, 4), 1e-7f);
    }

    @Test
    void djlsTrainerConfigRefusesVirtualReplicasWithAClearError() {
        Djl.setup();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StockDjl.config(Loss.softmaxCrossEntropyLoss(), 0.1f, Devices.virtual(2), true));
        assertTrue(e.getMessage().contains("DataParallelTrainer"), e.getMessage());
        DefaultTrainingConfig one = StockDjl.config(Loss.softmaxCrossEntropyLoss(), 0.1f, List.of(Device.cpu()), true);
        assertArrayEquals(new Device[] {Device.cpu()}, one.getDevices());
    }

    @Test
    void djlsParameterServerSumsTheDevicesGradientsAndUpdatesOncePerCopy() {
        Djl.setup();
        Engine.getInstance().setRandomSeed(3);
        try (NDManager manager = NDManager.newBaseManager()) {
            Block net = Init.weights(LeNet.block(), Init.pytorchLike());
            net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            Parameter w = net.getParameters().get(net.getParameters().size() - 2).getValue();
            var x = manager.randomUniform(0f, 1f, new Shape(8, 1, 28, 28));
            var y = manager.create(new float[] {0, 1, 2, 3, 4, 5, 6, 7});
            var before = w.getArray().duplicate();
            StockDjl.ServerStep step = StockDjl.parameterServerStep(net, w, x, y, 2, 0.1f);
            assertEquals(2.0, step.ratio(), 1e-5);
            assertEquals(List.of(1, 2), step.updateCounts());
            assertTrue(w.getArray().contentEquals(before), "the network's own weight is left as it was");
            assertThrows(IllegalArgumentException.class, () -> StockDjl.parameterServerStep(net, w, x, y, 3, 0.1f));
        }
    }
}
