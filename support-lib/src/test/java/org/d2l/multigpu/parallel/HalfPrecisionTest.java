package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.util.Pair;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.precision.LossScaler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HalfPrecisionTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private DataParallelTrainer half(Block net, Block like, int k, Optimizer opt, ReplicaSync sync, LossScaler scaler) {
        f.initialize(net, like);
        DataParallelTrainer.Builder b = DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                .optOptimizer(opt).optSync(sync).optProgress(false).optDataType(DataType.FLOAT16);
        if (scaler != null) {
            b.optLossScaler(scaler);
        }
        return f.closeLater(b.build());
    }

    private static float[] values(NDArray a) {
        return a.toType(DataType.FLOAT32, true).toFloatArray();
    }

    /** Every float16 replica equals replica 0 and its float32 master equals master 0, bit for bit. */
    private static void assertReplicasAndMastersBitIdentical(DataParallelTrainer t) {
        for (Pair<String, Parameter> p : t.getNet().getParameters()) {
            String id = p.getValue().getId();
            for (int i = 1; i < t.getDevices().size(); i++) {
                assertArrayEquals(values(t.replica(0).get(id)), values(t.replica(i).get(id)), 0f,
                        "float16 replica " + i + " differs from replica 0 in " + p.getKey());
                assertArrayEquals(t.master(0).get(id).toFloatArray(), t.master(i).get(id).toFloatArray(), 0f,
                        "master " + i + " differs from master 0 in " + p.getKey());
            }
        }
    }

    @Test
    void float16TracksFloat32OnAFixedBatchForTwentyStepsAndTheMasterStaysFloat32() {
        Block full = LeNet.block();
        DataParallelTrainer t32 = f.trainer(full, null, 1, sgd(0.03f), GradientAveraging.mean());
        Block halfNet = LeNet.block();
        DataParallelTrainer t16 = half(halfNet, full, 1, sgd(0.03f), GradientAveraging.mean(), null);
        Block start = f.initialize(LeNet.block(), full);
        NDList b = f.batch(16);
        double first = Double.NaN;
        double last = Double.NaN;
        double worst = 0;
        StringBuilder trace = new StringBuilder();
        for (int step = 0; step < 20; step++) {
            double l32 = t32.trainStep(b.get(0), b.get(1)).lossSum() / 16;
            double l16 = t16.trainStep(b.get(0), b.get(1)).lossSum() / 16;
            worst = Math.max(worst, Math.abs(l16 - l32));
            trace.append(String.format(java.util.Locale.ROOT, " %.4f/%.4f", l32, l16));
            first = step == 0 ? l32 : first;
            last = l32;
        }
        // Stated tolerance: the mean loss within 0.02 of float32's at every step.
        assertTrue(worst <= 0.02, "float32/float16 mean loss per step:" + trace);
        assertTrue(last < first - 0.2, "20 steps on one batch should lower the loss: " + first + " -> " + last);
        float moved = maxDifference(start, full);
        float diff = maxDifference(full, halfNet);
        // Stated tolerance: no float16-trained master weight further from float32's than a third of the
        // largest move float32 training made (measured: 0.005 against 0.023).
        assertTrue(diff <= moved / 3, "float16 master is " + diff + " from float32, which moved " + moved);
        assertEquals(0, t16.getLossScale().skippedSteps());
        for (Pair<String, Parameter> p : halfNet.getParameters()) {
            assertEquals(DataType.FLOAT32, p.getValue().getArray().getDataType(), "master " + p.getKey());
            assertEquals(DataType.FLOAT16, t16.replica(0).get(p.getValue().getId()).getDataType(),
                    "replica " + p.getKey());
        }
    }

    @Test
    void anOverflowSkipsTheStepLeavesTheParametersAndHalvesTheScaleThenTrainingGoesOn() {
        Block net = LeNet.block();
        float huge = (float) Math.pow(2, 30);
        DataParallelTrainer t = half(net, null, 2, sgd(0.1f), GradientAveraging.mean(), LossScaler.of(huge, 2000));
        Block before = f.initialize(LeNet.block(), net);
        NDList b = f.batch(4);
        t.trainStep(b.get(0), b.get(1));
        assertEquals(1, t.getLossScale().skippedSteps(), "a scale of 2^30 must overflow float16 gradients");
        assertEquals(huge / 2, t.getLossScale().scale());
        assertEquals(0f, maxDifference(before, net), "a skipped step changed the parameters");
        // Each further overflow halves the scale again; the step after the last skip trains.
        int skips = 1;
        for (int step = 2; maxDifference(before, net) == 0f; step++) {
            assertTrue(step <= 30, "training never resumed: " + t.getLossScale());
            float scale = t.getLossScale().scale();
            t.trainStep(b.get(0), b.get(1));
            if (t.getLossScale().skippedSteps() > skips) {
                skips++;
                assertEquals(scale / 2, t.getLossScale().scale());
                assertEquals(0f, maxDifference(before, net));
            } else {
                assertEquals(scale, t.getLossScale().scale(), "a good step keeps the scale");
            }
        }
        assertTrue(t.getLossScale().scale() < huge / 2, "the scale settled below the overflow");
        assertReplicasAndMastersBitIdentical(t);
    }

    @Test
    void theScaleDoublesAfterARunOfGoodSteps() {
        DataParallelTrainer t = half(LeNet.block(), null, 1, sgd(0.05f), GradientAveraging.mean(), LossScaler.of(8f, 3));
        NDList b = f.batch(4);
        for (int step = 0; step < 7; step++) {
            t.trainStep(b.get(0), b.get(1));
        }
        assertEquals(0, t.getLossScale().skippedSteps());
        assertEquals(32f, t.getLossScale().scale(), "8 doubled after steps 3 and 6");
    }

    private void assertReplicasStayBitIdentical(int k) {
        DataParallelTrainer t = half(LeNet.block(), null, k, sgd(0.1f), GradientAveraging.mean(), null);
        Block start = f.initialize(LeNet.block(), t.getNet());
        for (int step = 0; step < 3; step++) {
            NDList b = f.batch(4 * k);
            t.trainStep(b.get(0), b.get(1));
            assertReplicasAndMastersBitIdentical(t);
        }
        assertTrue(maxDifference(start, t.getNet()) > 1e-3f, "training did not move the parameters");
    }

    @Test
    void twoFloat16ReplicasStayBitIdenticalAfterEveryStep() {
        assertReplicasStayBitIdentical(2);
    }

    @Test
    void fourFloat16ReplicasStayBitIdenticalAfterEveryStep() {
        assertReplicasStayBitIdentical(4);
    }

    @Test
    void batchNormStaysFloat32InTheFloat16ReplicasAndItsRunningStatisticsAreAveragedIntoTheMasters() {
        Block net = new ai.djl.nn.SequentialBlock()
                .add(ai.djl.nn.convolutional.Conv2d.builder().setFilters(4).setKernelShape(new ai.djl.ndarray.types.Shape(3, 3)).build())
                .add(ai.djl.nn.norm.BatchNorm.builder().build())
                .add(ai.djl.nn.Activation::relu)
                .add(ai.djl.nn.Blocks.batchFlattenBlock())
                .add(ai.djl.nn.core.Linear.builder().setUnits(10).build());
        DataParallelTrainer t = half(net, null, 2, sgd(0.1f), GradientAveraging.mean(), null);
        String runningMean = null;
        for (Pair<String, Parameter> p : net.getParameters()) {
            String id = p.getValue().getId();
            boolean batchNorm = p.getKey().contains("BatchNorm");
            // as PyTorch's autocast: BatchNorm's scale, shift and statistics float32, everything else float16
            assertEquals(batchNorm ? DataType.FLOAT32 : DataType.FLOAT16, t.replica(1).get(id).getDataType(), p.getKey());
            if (p.getKey().contains("runningMean")) {
                runningMean = id;
            }
        }
        float[] before = t.master(0).get(runningMean).toFloatArray();
        for (int step = 0; step < 2; step++) {
            NDList b = f.batch(8);
            t.trainStep(b.get(0), b.get(1));
            assertReplicasAndMastersBitIdentical(t);
        }
        float[] master = t.master(0).get(runningMean).toFloatArray();
        assertTrue(maxAbsDiff(before, master) > 0, "running mean never moved");
        // the replicas hold the float32 statistics exactly, values that float16 cannot hold
        assertArrayEquals(master, t.replica(1).get(runningMean).toFloatArray(), 0f);
        float[] rounded = t.master(0).get(runningMean).toType(DataType.FLOAT16, true).toType(DataType.FLOAT32, true)
                .toFloatArray();
        assertTrue(maxAbsDiff(master, rounded) > 0, "the running mean happens to be exact in float16; test proves nothing");
    }

    @Test
    void bfloat16IsRefusedInTheBuilderAndTheJvmCarriesOn() {
        DataParallelTrainer.Builder b = DataParallelTrainer.builder(LeNet.block());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.optDataType(DataType.BFLOAT16));
        assertTrue(e.getMessage().contains("BFLOAT16") && e.getMessage().contains("FLOAT16"), e.getMessage());
        IllegalArgumentException i = assertThrows(IllegalArgumentException.class, () -> b.optDataType(DataType.INT32));
        assertTrue(i.getMessage().contains("FLOAT32"), i.getMessage());
        // still alive: a float16 trainer trains
        DataParallelTrainer t = half(LeNet.block(), null, 1, sgd(0.1f), GradientAveraging.mean(), null);
        NDList batch = f.batch(8);
        assertTrue(Double.isFinite(t.trainStep(batch.get(0), batch.get(1)).lossSum()));
    }

    @Test
    void oneLossScalerInTwoTrainersGivesEachItsOwnRunningScale() {
        LossScaler shared = LossScaler.of(8f, 2);
        DataParallelTrainer a = half(LeNet.block(), null, 1, sgd(0.05f), GradientAveraging.mean(), shared);
        for (int step = 0; step < 4; step++) {
            NDList b = f.batch(8);
            a.trainStep(b.get(0), b.get(1));
        }
        assertEquals(32f, a.getLossScale().scale(), "8 doubled after steps 2 and 4");
        DataParallelTrainer b = half(LeNet.block(), null, 1, sgd(0.05f), GradientAveraging.mean(), shared);
        assertEquals(8f, b.getLossScale().scale(), "a second trainer starts from the setting, not from the first run");
        assertEquals(8f, shared.initialScale());
    }

    @Test
    void aLossScalerWithoutFloat16IsAClearError() {
        f.initialize(LeNet.block(), null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(1)).optLearningRate(0.1f)
                        .optLossScaler(LossScaler.dynamic()).build());
        assertTrue(e.getMessage().contains("optDataType(DataType.FLOAT16)"), e.getMessage());
    }

    @Test
    void parameterAveragingInFloat16GivesEachWorkerItsOwnFloat32MasterAndAveragesThem() {
        Block net = LeNet.block();
        DataParallelTrainer t = half(net, null, 2, sgd(0.1f), ParameterAveraging.every(2), null);
        Block start = f.initialize(LeNet.block(), net);
        NDList a = f.batch(8);
        NDList b = f.batch(8);
        String id = net.getParameters().valueAt(0).getId();
        double firstLoss = Double.NaN;
        double lastLoss = Double.NaN;
        for (int round = 0; round < 4; round++) {
            StepResult r = t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
            firstLoss = round == 0 ? r.lossSum() : firstLoss;
            lastLoss = r.lossSum();
            for (int i = 0; i < 2; i++) {
                ReplicaStore replica = t.replica(i);
                assertEquals(DataType.FLOAT16, replica.get(id).getDataType());
                assertEquals(DataType.FLOAT32, t.master(i).get(id).getDataType());
                // each float16 replica is its own master, rounded
                assertArrayEquals(values(t.master(i).get(id).toType(DataType.FLOAT16, true)), values(replica.get(id)), 0f);
            }
            float[] m0 = t.master(0).get(id).toFloatArray();
            float[] m1 = t.master(1).get(id).toFloatArray();
            if (round % 2 == 0) {
                assertTrue(maxAbsDiff(m0, m1) > 0, "between averagings the workers' masters part ways");
            } else {
                assertReplicasAndMastersBitIdentical(t);
            }
        }
        assertTrue(lastLoss < firstLoss, "loss " + firstLoss + " -> " + lastLoss);
        assertTrue(maxDifference(start, net) > 1e-3f);
    }

    @Test
    void float32MetricsHaveNoLossScaleAndTheirTableNoScalingColumns() {
        EpochMetrics m = EpochMetrics.of(1, 0.5, 0.8, 0.7, 1, 100);
        assertEquals(0, m.skippedSteps());
        assertTrue(Double.isNaN(m.lossScale()));
        assertTrue(!EpochMetrics.table(List.of(m)).contains("loss scale"));
    }

    private static float maxAbsDiff(float[] a, float[] b) {
        float max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }

    @Test
    void fitInFloat16ReportsSkippedStepsAndTheLossScalePerEpoch() {
        Block net = LeNet.block();
        DataParallelTrainer t = half(net, null, 2, sgd(0.5f), GradientAveraging.mean(), LossScaler.of(1e30f, 2000));
        var data = f.quarters(32);
        List<EpochMetrics> h = t.fit(data, null, 1);
        EpochMetrics last = h.get(0);
        assertTrue(last.skippedSteps() > 0, "a scale of 1e30 overflows: " + EpochMetrics.table(h));
        assertEquals(t.getLossScale().scale(), last.lossScale());
        assertTrue(last.lossScale() < 1e30);
        assertEquals(t.getLossScale().skippedSteps(), h.stream().mapToLong(EpochMetrics::skippedSteps).sum());
        assertTrue(EpochMetrics.table(h).contains("loss scale"));
    }
}
