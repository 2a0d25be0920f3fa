package org.d2l.multigpu.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class AccuracyTest {

    @Test
    void accuracyCountsRowsWhoseArgmaxIsTheLabel() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray yHat = m.create(new float[][] {{0.1f, 0.9f}, {0.8f, 0.2f}, {0.3f, 0.7f}});
            assertEquals(2f, Accuracy.accuracy(yHat, m.create(new float[] {1, 0, 0})));
        }
    }

    @Test
    void evaluatingOnSeveralDevicesAgreesWithOneDevice() throws Exception {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            m.getEngine().setRandomSeed(7);
            Block net = LeNet.block();
            net.initialize(m, DataType.FLOAT32, new Shape(1, 1, 28, 28));
            // 37 examples in batches of 10: the last batch (7) splits unevenly, and over 4 devices too
            NDArray x = m.randomUniform(0, 1, new Shape(37, 1, 28, 28));
            NDArray y = m.randomInteger(0, 10, new Shape(37), DataType.INT32).toType(DataType.FLOAT32, false);
            ArrayDataset data = new ArrayDataset.Builder().setData(x).optLabels(y).setSampling(10, false).build();
            double one = Accuracy.evaluateAccuracy(net, data.getData(m), Device.cpu());
            // what the accuracy must be, computed directly
            NDArray all = net.forward(new ai.djl.training.ParameterStore(m, false), new ai.djl.ndarray.NDList(x), false).head();
            double direct = Accuracy.accuracy(all, y) / 37.0;
            assertEquals(direct, one, 1e-12);
            for (List<Device> devices : List.of(Devices.of(2), Devices.virtual(4), Devices.of(Math.max(1, Devices.gpuCount())))) {
                assertEquals(one, Accuracy.evaluateAccuracyGpus(net, data.getData(m), devices), 1e-12);
            }
            assertTrue(one >= 0 && one <= 1);
            // the same network given as a function, as the from-scratch lesson does
            ai.djl.training.ParameterStore store = new ai.djl.training.ParameterStore(m, false);
            double viaFunction = Accuracy.evaluateAccuracy(
                    img -> net.forward(store, new ai.djl.ndarray.NDList(img), false).head(), data.getData(m), Device.cpu());
            assertEquals(one, viaFunction, 1e-12);
        }
    }
}
