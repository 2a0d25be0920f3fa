package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.util.Pair;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.precision.LossScaler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PureFloat16TrainingTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private DataParallelTrainer pure(Block net, Block like, int k, float lr) {
        f.initialize(net, like);
        return f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(k)).optOptimizer(sgd(lr))
                .optProgress(false).optDataType(DataType.FLOAT16).optMasterWeights(false).build());
    }

    @Test
    void theRuleUpdatesTheFloat16WeightsThemselvesAndTheBlockHoldsReplicaZerosValues() {
        Block net = LeNet.block();
        DataParallelTrainer t = pure(net, null, 2, 0.1f);
        Block start = f.initialize(LeNet.block(), net);
        assertNull(t.getLossScale(), "pure float16 has no loss scaling");
        assertEquals(DataType.FLOAT16, t.getDataType());
        assertTrue(t.describePrecision().startsWith("pure"), t.describePrecision());
        for (int step = 0; step < 2; step++) {
            NDList b = f.batch(8);
            t.trainStep(b.get(0), b.get(1));
        }
        assertTrue(maxDifference(start, net) > 1e-3f, "training did not move the block's weights");
        for (Pair<String, Parameter> p : net.getParameters()) {
            String id = p.getValue().getId();
            assertSame(t.replica(1), t.master(1), "no separate master");
            assertEquals(DataType.FLOAT16, t.replica(0).get(id).getDataType());
            assertEquals(DataType.FLOAT32, p.getValue().getArray().getDataType());
            float[] r0 = t.replica(0).get(id).toType(DataType.FLOAT32, true).toFloatArray();
            assertArrayEquals(r0, p.getValue().getArray().toFloatArray(), 0f, "block != replica 0 in " + p.getKey());
            assertArrayEquals(r0, t.replica(1).get(id).toType(DataType.FLOAT32, true).toFloatArray(), 0f);
        }
    }

    @Test
    void updatesBelowFloat16sSpacingAreLostWithoutMasterWeightsAndKeptWithThem() {
        Block like = f.initialize(LeNet.block(), null);
        Block pureNet = LeNet.block();
        DataParallelTrainer p = pure(pureNet, like, 1, 1e-4f);
        Block mixedNet = LeNet.block();
        f.initialize(mixedNet, like);
        DataParallelTrainer m = f.closeLater(DataParallelTrainer.builder(mixedNet).setDevices(Devices.virtual(1))
                .optOptimizer(sgd(1e-4f)).optProgress(false).optDataType(DataType.FLOAT16).build());
        List<float[]> start16 = values(p);
        for (int step = 0; step < 3; step++) {
            NDList b = f.batch(16);
            p.trainStep(b.get(0), b.get(1));
            m.trainStep(b.get(0), b.get(1));
        }
        long pureMoved = changed(start16, values(p));
        long masterMoved = changed(values(like), values(mixedNet));
        // Stated bound: at lr 1e-4 more than half of the weights that the float32 masters move stay
        // where they were in pure float16 (measured: about 0.9 of them).
        assertTrue(pureMoved < masterMoved / 2, "pure float16 moved " + pureMoved + " weights, the masters "
                + masterMoved);
        assertTrue(masterMoved > 1000, "the masters moved only " + masterMoved + " weights");
    }

    /** Replica 0's weights as float32 values, parameter by parameter. */
    private static List<float[]> values(DataParallelTrainer t) {
        return t.getNet().getParameters().values().stream()
                .map(p -> t.replica(0).get(p.getId()).toType(DataType.FLOAT32, true).toFloatArray()).toList();
    }

    /** A block's weights, parameter by parameter. */
    private static List<float[]> values(Block net) {
        return net.getParameters().values().stream().map(p -> p.getArray().toFloatArray()).toList();
    }

    /** How many values differ between two lists of the same shapes. */
    private static long changed(List<float[]> a, List<float[]> b) {
        long n = 0;
        for (int i = 0; i < a.size(); i++) {
            for (int j = 0; j < a.get(i).length; j++) {
                n += a.get(i)[j] != b.get(i)[j] ? 1 : 0;
            }
        }
        return n;
    }

    @Test
    void fitReportsEveryMetricAndSyncsFloat16GradientsEveryStep() {
        Block net = LeNet.block();
        DataParallelTrainer t = pure(net, null, 2, 0.5f);
        ArrayDataset data = f.quarters(64);
        List<EpochMetrics> h = t.fit(data, data, 2);
        long steps = 64 / 16;
        for (EpochMetrics m : h) {
            for (double v : new double[] {m.trainLoss(), m.trainAccuracy(), m.testAccuracy(), m.seconds(),
                m.examplesPerSecond()}) {
                assertTrue(Double.isFinite(v), EpochMetrics.table(h));
            }
            assertEquals(steps, m.syncs(), "one gradient allreduce per step");
            // every replica hands in its float16 gradient: 2 bytes per weight and replica
            assertEquals(steps * 2 * 2 * TrainerFixture.parameterBytes(net) / 4, m.syncBytes());
            assertTrue(Double.isNaN(m.lossScale()));
        }
        assertFalse(EpochMetrics.table(h).contains("NaN"), EpochMetrics.table(h));
        assertTrue(h.get(1).trainLoss() < h.get(0).trainLoss(), EpochMetrics.table(h));
    }

    @Test
    void pureFloat16NeedsFloat16AndTakesNoLossScaler() {
        f.initialize(LeNet.block(), null);
        IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(1)).optLearningRate(0.1f)
                        .optMasterWeights(false).build());
        assertTrue(a.getMessage().contains("optDataType(DataType.FLOAT16)"), a.getMessage());
        IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(1)).optLearningRate(0.1f)
                        .optDataType(DataType.FLOAT16).optMasterWeights(false).optLossScaler(LossScaler.dynamic())
                        .build());
        assertTrue(b.getMessage().contains("loss scaling"), b.getMessage());
    }
}
