package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.WithCpuManager;
import org.junit.jupiter.api.Test;

class FromScratchTest extends WithCpuManager {

    private static List<Device> cpus(int k) {
        return Collections.nCopies(k, Device.cpu());
    }

    @Test
    void allreduceLeavesTheSumInEveryCopy() {
        NDArray a = manager.create(new float[] {1, 2});
        NDArray b = manager.create(new float[] {10, 20});
        NDArray c = manager.create(new float[] {100, 200});
        FromScratch.allreduce(List.of(a, b, c));
        for (NDArray x : List.of(a, b, c)) {
            assertArrayEquals(new float[] {111, 222}, x.toFloatArray());
        }
    }

    @Test
    void sgdMakesItsStepOnTheParametersDeviceWhateverTheirManagersDevice() {
        // on a GPU machine a lesson's default manager is gpu(0)'s and holds the copies of virtual replicas on the CPU;
        // a step made by that manager would sit on the GPU (on this machine without one: cannot be made at all)
        try (NDManager gpuNamed = NDManager.newBaseManager(Device.gpu(0))) {
            NDArray p = FromScratch.getParams(List.of(manager.create(new float[] {1, 2})), Device.cpu(), manager).get(0);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                gc.backward(p.mul(manager.create(new float[] {4, 8})).sum()); // gradient 4, 8
            }
            p.attach(gpuNamed);
            FromScratch.sgd(List.of(p), 0.5f, 2);
            assertArrayEquals(new float[] {0, 0}, p.toFloatArray());
        }
    }

    @Test
    void getParamsMakesIndependentCopiesWithGradients() {
        List<NDArray> params = List.of(manager.ones(new Shape(2)));
        List<NDArray> copy = FromScratch.getParams(params, Device.cpu(), manager);
        copy.get(0).addi(1);
        assertArrayEquals(new float[] {1, 1}, params.get(0).toFloatArray());
        assertTrue(copy.get(0).hasGradient());
    }

    @Test
    void splitBatchGivesUnevenShardsThatDifferByAtMostOne() {
        NDArray x = manager.arange(14f).reshape(7, 2);
        NDArray y = manager.arange(7f);
        FromScratch.Shards s = FromScratch.splitBatch(x, y, cpus(2));
        assertEquals(new Shape(4, 2), s.x().get(0).getShape());
        assertEquals(new Shape(3, 2), s.x().get(1).getShape());
        assertArrayEquals(new float[] {4, 5, 6}, s.y().get(1).toFloatArray());
    }

    @Test
    void splitBatchRejectsFewerExamplesThanDevices() {
        NDArray x = manager.zeros(new Shape(3, 2));
        NDArray y = manager.zeros(new Shape(3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FromScratch.splitBatch(x, y, cpus(4)));
        assertTrue(e.getMessage().contains("batch size of at least 4"), e.getMessage());
    }

    @Test
    void trainBatchOnTwoReplicasMatchesOneReplicaAndKeepsCopiesEqual() {
        manager.getEngine().setRandomSeed(3);
        List<NDArray> params = LeNet.initParams(manager);
        NDArray x = manager.randomUniform(0, 1, new Shape(8, 1, 28, 28));
        NDArray y = manager.create(new float[] {0, 1, 2, 3, 4, 5, 6, 7});
        Loss loss = Loss.softmaxCrossEntropyLoss();
        List<List<NDArray>> one = List.of(FromScratch.getParams(params, Device.cpu(), manager));
        List<List<NDArray>> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(FromScratch.getParams(params, Device.cpu(), manager));
        }
        for (int step = 0; step < 3; step++) {
            FromScratch.trainBatch(x, y, one, cpus(1), 0.5f, loss, LeNet::lenet);
            FromScratch.trainBatch(x, y, two, cpus(2), 0.5f, loss, LeNet::lenet);
        }
        for (int j = 0; j < params.size(); j++) {
            assertArrayEquals(two.get(0).get(j).toFloatArray(), two.get(1).get(j).toFloatArray(), 0f);
            assertArrayEquals(one.get(0).get(j).toFloatArray(), two.get(0).get(j).toFloatArray(), 1e-5f);
        }
        // the copies moved away from the initial values
        assertTrue(one.get(0).get(0).sub(params.get(0)).abs().max().getFloat() > 0);
    }
}
