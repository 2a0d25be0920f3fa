package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.LinkedHashMap;
import java.util.Map;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.precision.ParameterBytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ParameterBytesTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /** The bytes of a 2-replica LeNet trainer after one step of SGD with momentum. */
    private ParameterBytes afterOneStep(DataType type, boolean masters) {
        Block net = LeNet.block();
        f.initialize(net, null);
        Optimizer momentum = Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.01f)).optMomentum(0.9f).build();
        DataParallelTrainer t = f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optOptimizer(momentum).optProgress(false).optDataType(type).optMasterWeights(masters).build());
        NDList b = f.batch(8);
        t.trainStep(b.get(0), b.get(1));
        return t.parameterBytes();
    }

    @Test
    void eachKindOfCopyIsCountedOnceFromTheArrays() {
        long p32 = TrainerFixture.parameterBytes(f.initialize(LeNet.block(), null)); // 4 bytes per weight
        ParameterBytes f32 = afterOneStep(DataType.FLOAT32, true);
        assertEquals(new ParameterBytes(2, 2 * p32, 2 * p32, 0, 0, p32, 2 * p32), f32);
        ParameterBytes mixed = afterOneStep(DataType.FLOAT16, true);
        // float16 copies and gradients on both replicas, float32 masters and gradients on both, the
        // momentum of the one float32 master the optimizer updates; the float32 gradients are averaged
        assertEquals(new ParameterBytes(2, p32, p32, 2 * p32, 2 * p32, p32, 2 * p32), mixed);
        ParameterBytes pure = afterOneStep(DataType.FLOAT16, false);
        assertEquals(new ParameterBytes(2, p32, p32, 0, 0, p32 / 2, p32), pure);
    }

    @Test
    void theTableShowsEveryRunInKilobytes() {
        Map<String, ParameterBytes> runs = new LinkedHashMap<>();
        runs.put("FLOAT32", new ParameterBytes(2, 2000, 2000, 0, 0, 1000, 2000));
        runs.put("pure float16", new ParameterBytes(2, 1000, 1000, 0, 0, 500, 1000));
        String table = ParameterBytes.table(runs);
        assertTrue(table.startsWith("kB, 2 replicas"), table);
        assertTrue(table.contains("total held") && table.contains("5.0") && table.contains("2.5"), table);
    }
}
