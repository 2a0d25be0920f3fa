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
import org.d2l.multigpu.loop.EpochMetrics;
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
    void float16ComputesTheLossOfItsFloat32MasterWithinFloat16RoundingAtEveryStepAndTheMasterStaysFloat32() {
        Block full = LeNet.block();
        DataParallelTrainer t32 = f.trainer(full, null, 1, sgd(0.03f), GradientAveraging.mean());
        Block halfNet = LeNet.block();
        DataParallelTrainer t16 = half(halfNet, full, 1, sgd(0.03f), GradientAveraging.mean(), null);
        NDList b = f.batch(16);
        double first16 = Double.NaN;
        double last16 = Double.NaN;
        double first32 = Double.NaN;
        double last32 = Double.NaN;
        double worst = 0;
        StringBuilder trace = new StringBuilder();
        for (int step = 0; step < 20; step++) {
            // The float32 loss of the float16 run's own master weights, and how far the float16 step's loss
            // may lie from it: LeNetLossBound, from float16's and float32's rounding (not from a run).
            double master32 = meanLoss(halfNet, b);
            double bound = LeNetLossBound.float16(halfNet, b.get(0), b.get(1)) + LeNetLossBound.float32(halfNet, b.get(0), b.get(1));
            double l16 = t16.trainStep(b.get(0), b.get(1)).lossSum() / 16;
            double l32 = t32.trainStep(b.get(0), b.get(1)).lossSum() / 16;
            worst = Math.max(worst, Math.abs(l16 - master32) / bound);
            trace.append(String.format(java.util.Locale.ROOT, " %.5f/%.5f+-%.5f", l16, master32, bound));
            first16 = step == 0 ? l16 : first16;
            first32 = step == 0 ? l32 : first32;
            last16 = l16;
            last32 = l32;
        }
        assertTrue(worst <= 1, "float16 loss / float32 loss of the same master +- bound, per step:" + trace);
        // Both learn the batch: 20 steps at lr 0.03 lower the loss by more than 0.2 (about a tenth of ln 10).
        assertTrue(last32 < first32 - 0.2, "float32: " + first32 + " -> " + last32);
        assertTrue(last16 < first16 - 0.2, "float16: " + first16 + " -> " + last16);
        assertEquals(0, t16.getLossScale().skippedSteps());
        for (Pair<String, Parameter> p : halfNet.getParameters()) {
            assertEquals(DataType.FLOAT32, p.getValue().getArray().getDataType(), "master " + p.getKey());
            assertEquals(DataType.FLOAT16, t16.replica(0).get(p.getValue().getId()).getDataType(),
                    "replica " + p.getKey());
        }
    }

    @Test
    void float16WithMastersUpdatesBitForBitLikeFloat32WhenEveryValueIsExactInFloat16() {
        // A dense layer on values with few significant bits: every product, sum, gradient and update below is
        // exact in float16 as in float32, and a loss scale of 2^4 multiplies exactly, so the float16 path (scale,
        // backward in float16, unscale into the float32 master, update) must give float32's parameters bit for
        // bit; an error in scaling or in the master update would not.
        float[] w = {0.5f, -0.25f, 0.125f};
        float[] bias = {0.25f};
        List<DataParallelTrainer> trainers = new java.util.ArrayList<>();
        List<Block> nets = List.of(ai.djl.nn.core.Linear.builder().setUnits(1).build(),
                ai.djl.nn.core.Linear.builder().setUnits(1).build());
        for (Block net : nets) {
            net.initialize(f.manager, DataType.FLOAT32, new ai.djl.ndarray.types.Shape(4, 3));
            net.getParameters().get(0).getValue().getArray().set(w);
            net.getParameters().get(1).getValue().getArray().set(bias);
            DataParallelTrainer.Builder b = DataParallelTrainer.builder(net).setDevices(Devices.virtual(1))
                    .optOptimizer(sgd(0.125f)).optLoss(ai.djl.training.loss.Loss.l2Loss()).optProgress(false);
            if (trainers.isEmpty()) {
                trainers.add(f.closeLater(b.build()));
            } else {
                trainers.add(f.closeLater(b.optDataType(DataType.FLOAT16).optLossScaler(LossScaler.of(16f, 2000)).build()));
            }
        }
        NDArray x = f.manager.create(new float[] {1, -2, 0, 2, 1, -1, 0, 1, 2, -1, 0, 1}, new ai.djl.ndarray.types.Shape(4, 3));
        NDArray y = f.manager.create(new float[] {1, -1, 0.5f, 0.25f}, new ai.djl.ndarray.types.Shape(4, 1));
        for (int step = 1; step <= 2; step++) { // a third step needs more bits than float16 has
            double l32 = trainers.get(0).trainStep(x, y).lossSum();
            double l16 = trainers.get(1).trainStep(x, y).lossSum();
            for (int i = 0; i < 2; i++) {
                float[] v32 = nets.get(0).getParameters().get(i).getValue().getArray().toFloatArray();
                float[] v16 = nets.get(1).getParameters().get(i).getValue().getArray().toFloatArray();
                float[] inFloat16 = nets.get(0).getParameters().get(i).getValue().getArray()
                        .toType(DataType.FLOAT16, false).toType(DataType.FLOAT32, false).toFloatArray();
                assertArrayEquals(v32, inFloat16, 0f, "step " + step + ": float32's parameters need more bits than "
                        + "float16 has; the test proves nothing");
                assertArrayEquals(v32, v16, 0f, "step " + step + ", parameter " + i);
            }
            assertEquals(l32, l16, 0, "step " + step + ": the loss");
        }
        assertEquals(0, trainers.get(1).getLossScale().skippedSteps());
    }

    /** The mean cross-entropy of {@code net} (float32) on the batch {@code b}. */
    private static double meanLoss(Block net, NDList b) {
        try (ai.djl.ndarray.NDManager tmp = b.get(0).getManager().newSubManager()) {
            NDArray yHat = net.forward(new ai.djl.training.ParameterStore(tmp, false), new NDList(b.get(0)), false).head();
            return ai.djl.training.loss.Loss.softmaxCrossEntropyLoss().evaluate(new NDList(b.get(1)), new NDList(yHat))
                    .getFloat();
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
