package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.loss.Loss;
import java.util.List;
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
}
