package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.assertReplicasBitIdentical;
import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.parameterBytes;
import static org.d2l.multigpu.parallel.TrainerFixture.replicaDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ParameterAveragingTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /** Trains gradient averaging and parameter averaging (frequency 1) on the same 10 global batches; returns the largest difference. */
    private float differenceAfterTenSteps(Supplier<Optimizer> opt, int k) {
        Block ga = LeNet.block();
        DataParallelTrainer tGa = f.trainer(ga, null, k, opt.get(), GradientAveraging.mean());
        Block pa = LeNet.block();
        DataParallelTrainer tPa = f.trainer(pa, ga, k, opt.get(), ParameterAveraging.every(1));
        Block start = f.initialize(LeNet.block(), ga);
        for (int step = 0; step < 10; step++) {
            NDList b = f.batch(8 * k); // equal shards: the mean of shard means is the global mean
            tGa.trainStep(b.get(0), b.get(1));
            tPa.trainStep(b.get(0), b.get(1)); // worker i takes shard i as its own minibatch
            assertReplicasBitIdentical(tPa);
        }
        assertTrue(maxDifference(start, ga) > 1e-3f, "training did not move the parameters");
        return maxDifference(ga, pa);
    }

    @Test
    void atFrequencyOnePlainSgdEqualsGradientAveraging() {
        float d2 = differenceAfterTenSteps(() -> sgd(0.1f), 2);
        assertTrue(d2 <= 1e-5f, "2 workers: " + d2);
        float d4 = differenceAfterTenSteps(() -> sgd(0.1f), 4);
        assertTrue(d4 <= 1e-5f, "4 workers: " + d4);
    }

    @Test
    void atFrequencyOneSgdWithMomentumAndAveragedUpdatersEqualsGradientAveraging() {
        float d = differenceAfterTenSteps(
                () -> Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build(), 2);
        assertTrue(d <= 1e-5f, "momentum: " + d);
    }

    @Test
    void withAdamParameterAveragingDiffersFromGradientAveraging() {
        // Adam's step divides by the root of the second moment: averaging after the step is not
        // the step of the averaged gradient, so the rules part ways (the documented limit).
        float d = differenceAfterTenSteps(() -> Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.01f)).build(), 2);
        assertTrue(d > 1e-4f, "Adam: parameter averaging unexpectedly equals gradient averaging (" + d + ")");
    }

    private static Optimizer momentum() {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build();
    }

    @Test
    void averagedUpdatersGiveEveryWorkerTheMeanMomentum() {
        Optimizer opt = momentum();
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, opt, ParameterAveraging.every(2));
        String id = net.getParameters().valueAt(0).getId();
        OptimizerState state = OptimizerState.of(opt);
        assertEquals(1, state.kinds(), "SGD with momentum keeps one state per parameter");
        ai.djl.Device cpu = ai.djl.Device.cpu();
        for (int round = 1; round <= 4; round++) {
            NDList a = f.batch(8);
            NDList b = f.batch(8);
            t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
            NDArray m0 = state.get(0, ParameterAveraging.stateKey(id, 0), cpu);
            NDArray m1 = state.get(0, ParameterAveraging.stateKey(id, 1), cpu);
            float gap = m0.sub(m1).abs().max().getFloat();
            if (round % 2 == 0) {
                assertEquals(0f, gap, "momentum of the workers after averaging round " + round);
            } else {
                assertTrue(gap > 0f, "each worker keeps its own momentum between averagings");
            }
        }
    }

    @Test
    void averagingTheUpdaterStateChangesTrainingWhenAveragingIsLessFrequent() {
        Block on = LeNet.block();
        DataParallelTrainer tOn = f.trainer(on, null, 2, momentum(), ParameterAveraging.every(2));
        Block off = LeNet.block();
        DataParallelTrainer tOff = f.trainer(off, on, 2, momentum(),
                ParameterAveraging.builder().optAveragingFrequency(2).optAverageUpdaters(false).build());
        for (int round = 0; round < 6; round++) {
            NDList a = f.batch(8);
            NDList b = f.batch(8);
            tOn.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
            tOff.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
        }
        assertTrue(maxDifference(on, off) > 1e-6f, "optAverageUpdaters(false) trained exactly like true");
    }

    @Test
    void oneRuleObjectInTwoTrainersKeepsTheirAveragingPeriodsApart() {
        ParameterAveraging shared = ParameterAveraging.every(3);
        Block a = LeNet.block();
        DataParallelTrainer tA = f.trainer(a, null, 2, sgd(0.1f), shared);
        Block b = LeNet.block();
        DataParallelTrainer tB = f.trainer(b, a, 2, sgd(0.1f), shared);
        Block c = LeNet.block();
        DataParallelTrainer tC = f.trainer(c, a, 2, sgd(0.1f), ParameterAveraging.every(3)); // a rule of its own
        for (int round = 1; round <= 4; round++) {
            NDList x = f.batch(8);
            NDList y = f.batch(8);
            List<NDArray> xs = List.of(x.get(0), y.get(0));
            List<NDArray> ys = List.of(x.get(1), y.get(1));
            tA.trainRound(xs, ys); // rounds of A and B interleave: a shared counter would average early
            tB.trainRound(xs, ys);
            tC.trainRound(xs, ys);
            assertEquals(replicaDifference(tC, 1), replicaDifference(tB, 1), "round " + round);
        }
        assertEquals(0f, maxDifference(b, c), "trainer B did what a trainer with a rule of its own does");
        assertEquals(0f, maxDifference(a, c));
    }

    @Test
    void replicasDifferBetweenAveragingsAndAreBitIdenticalRightAfterEach() {
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 2, sgd(0.1f), ParameterAveraging.every(3));
        for (int round = 1; round <= 7; round++) {
            NDList a = f.batch(8);
            NDList b = f.batch(8);
            t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
            if (round % 3 == 0) {
                assertReplicasBitIdentical(t);
            } else {
                assertTrue(replicaDifference(t, 1) > 0f, "replicas equal after round " + round);
            }
        }
    }

    private ArrayDataset dataset(int minibatches, int batchSize) {
        NDList all = f.batch(minibatches * batchSize);
        return new ArrayDataset.Builder().setData(all.get(0)).optLabels(all.get(1))
                .setSampling(batchSize, false).build();
    }

    @Test
    void anEpochHasCeilOfRoundsOverNAveragingsEachMovingParameterBytesTimesK() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, sgd(0.05f), ParameterAveraging.every(4));
        EpochMetrics m = t.trainEpoch(dataset(12, 4), null); // 12 minibatches on 2 workers: 6 rounds
        assertEquals(6, t.getSteps());
        assertEquals(2, m.syncs(), "ceil(6 / 4) averagings");
        assertEquals(2 * 2 * parameterBytes(net), m.syncBytes());
        assertReplicasBitIdentical(t);
    }

    @Test
    void gradientAveragingCountsOneSyncPerStepOfGradientBytesTimesK() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, sgd(0.05f), GradientAveraging.mean());
        EpochMetrics m = t.trainEpoch(dataset(6, 8), null);
        assertEquals(6, m.syncs());
        assertEquals(6 * 2 * parameterBytes(net), m.syncBytes()); // LeNet trains every parameter
    }

    @Test
    void aSingleReplicaSynchronisesNothingUnderEitherRule() {
        for (ReplicaSync rule : List.of(GradientAveraging.mean(), ParameterAveraging.every(1))) {
            DataParallelTrainer t = f.trainer(LeNet.block(), null, 1, sgd(0.05f), rule);
            EpochMetrics m = t.trainEpoch(dataset(4, 8), null);
            assertEquals(4, m.steps(), rule.describe());
            assertEquals(0, m.syncs(), rule.describe());
            assertEquals(0, m.syncBytes(), rule.describe());
        }
    }

    @Test
    void bothRulesCountTheReduceAndTheBroadcastOfEveryArray() {
        // k = 4: 3 copies reduced into replica 0 and 3 sent back, 6 copies of the parameters
        Block ga = LeNet.block();
        EpochMetrics g = f.trainer(ga, null, 4, sgd(0.05f), GradientAveraging.mean()).trainEpoch(dataset(2, 8), null);
        assertEquals(2 * 6 * parameterBytes(ga), g.syncBytes());
        Block pa = LeNet.block();
        DataParallelTrainer t = f.trainer(pa, null, 4, sgd(0.05f), ParameterAveraging.every(1));
        EpochMetrics p = t.trainEpoch(dataset(6, 2), null); // a round of 4 minibatches, then one of 2
        assertEquals(2, p.steps());
        assertEquals((6 + (1 + 3)) * parameterBytes(pa), p.syncBytes(), "the partial round reduces 1 copy");
    }

    @Test
    void aLastPartialRoundStepsOnlyTheWorkersWithDataAndTheEpochEndsAveraged() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, sgd(0.05f), ParameterAveraging.every(1));
        EpochMetrics m = t.trainEpoch(dataset(5, 4), null); // rounds of 2, 2 and 1 minibatches
        assertEquals(3, t.getSteps());
        assertEquals(3, m.syncs());
        assertEquals((2 + 2 + 1) * parameterBytes(net), m.syncBytes(), "the last averaging takes worker 0 alone");
        assertReplicasBitIdentical(t);
    }

    @Test
    void anEpochWithFewerMinibatchesThanTheFrequencyStillEndsAveraged() {
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 2, sgd(0.05f), ParameterAveraging.every(30));
        EpochMetrics m = t.trainEpoch(dataset(6, 4), null);
        assertEquals(1, m.syncs());
        assertReplicasBitIdentical(t);
    }

    @Test
    void aFrequencyBelowOneIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ParameterAveraging.builder().optAveragingFrequency(0));
        assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
    }

    @Test
    void moreWorkersThanExamplesIsAClearError() {
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 4, sgd(0.1f), ParameterAveraging.every(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.trainEpoch(dataset(3, 1), null));
        assertTrue(e.getMessage().contains("fewer than the 4 workers"), e.getMessage());
        NDList b = f.batch(3);
        assertEquals(3, t.trainStep(b.get(0), b.get(1)).examples(), "3 examples: a round of 3 workers");
        assertReplicasBitIdentical(t);
    }

    @Test
    void trainRoundWithGradientAveragingIsAClearError() {
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 2, sgd(0.1f), GradientAveraging.mean());
        NDList b = f.batch(4);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> t.trainRound(List.of(b.get(0)), List.of(b.get(1))));
        assertTrue(e.getMessage().contains("trainStep"), e.getMessage());
    }

    @Test
    void aNanLossFailsTheRoundAndLeavesEveryWorkerAsItWasBeforeIt() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, sgd(0.1f), ParameterAveraging.every(5));
        NDList a = f.batch(8);
        NDList b = f.batch(8);
        t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
        assertTrue(replicaDifference(t, 1) > 0f, "workers should differ before the failing round");
        List<float[]> before = values(t);
        NDArray bad = b.get(0).duplicate();
        bad.set(new NDIndex("0, 0, 0, 0"), Float.NaN);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> t.trainRound(List.of(a.get(0), bad), List.of(a.get(1), b.get(1))));
        assertTrue(e.getMessage().contains("NaN") && e.getMessage().contains("round"), e.getMessage());
        List<float[]> after = values(t);
        for (int i = 0; i < before.size(); i++) {
            assertArrayEquals(before.get(i), after.get(i), 0f, "array " + i + " changed by the failing round");
        }
        t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1))); // and training goes on
        assertEquals(2, t.getSteps());
    }

    /** Every replica's parameter values, replica by replica. */
    private static List<float[]> values(DataParallelTrainer t) {
        List<float[]> v = new ArrayList<>();
        for (int i = 0; i < t.getDevices().size(); i++) {
            for (var p : t.getNet().getParameters()) {
                v.add(t.replica(i).get(p.getValue().getId()).toFloatArray());
            }
        }
        return v;
    }

    @Test
    void workerThreadsGiveTheSameParametersAsWorkersOneAfterAnother() {
        Block seq = LeNet.block();
        DataParallelTrainer tSeq = f.trainer(seq, null, 2, sgd(0.1f), ParameterAveraging.every(2), false);
        Block par = LeNet.block();
        DataParallelTrainer tPar = f.trainer(par, seq, 2, sgd(0.1f), ParameterAveraging.every(2), true);
        assertTrue(tPar.isConcurrent());
        for (int round = 0; round < 4; round++) {
            NDList a = f.batch(8);
            NDList b = f.batch(8);
            tSeq.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
            tPar.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
        }
        assertEquals(0f, maxDifference(seq, par));
    }

    @Test
    void fitTrainsWithParameterAveragingAndPrefetching() {
        ArrayDataset data = TrainerFixture.quarters(f.manager, 64, 16, true);
        Block net = LeNet.block();
        DataParallelTrainer t = f.closeLater(DataParallelTrainer.builder(net)
                .setDevices(org.d2l.multigpu.devices.Devices.virtual(2))
                .optInputShape(TrainerFixture.IMAGE).optLearningRate(0.5f)
                .optSync(ParameterAveraging.every(2)).optPrefetch(true).optProgress(false).build());
        List<EpochMetrics> h = t.fit(data, data, 8);
        assertTrue(h.get(7).testAccuracy() > 0.9, EpochMetrics.table(h));
        assertEquals(8 * 2, t.getSteps(), "4 minibatches on 2 workers: 2 rounds an epoch");
        assertEquals(8, t.getHistory().size());
    }

    @Test
    void djlsNesterovIsRefusedBeforeTrainingBecauseThePyTorchEngineLacksItAndTheJarsIsNamed() {
        Optimizer nag = Optimizer.nag().setLearningRateTracker(Tracker.fixed(0.01f)).setMomentum(0.9f).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> f.trainer(LeNet.block(), null, 2, nag, ParameterAveraging.every(3)));
        assertTrue(e.getMessage().contains("Nesterov.builder()"), e.getMessage());
    }

    /** An optimizer with state that DJL's optimizers do not keep as Map<String, Map<Device, NDArray>>. */
    private static final class OddMomentum extends Optimizer {
        private final java.util.Map<String, NDArray> velocity = new java.util.HashMap<>();

        OddMomentum() {
            super(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.1f)));
        }

        @Override
        public void update(String parameterId, NDArray weight, NDArray grad) {
            NDArray v = velocity.computeIfAbsent(parameterId, k -> weight.zerosLike());
            v.muli(0.9f).addi(grad);
            weight.subi(v.mul(0.1f));
        }
    }

    @Test
    void averagingTheStateOfAnOptimizerWhoseStateCannotBeFoundIsAClearError() {
        assertEquals(1, OptimizerState.of(momentum()).kinds());
        assertFalse(OptimizerState.keepsState(sgd(0.1f)), "plain SGD keeps no state");
        assertTrue(OptimizerState.keepsState(momentum()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> OptimizerState.of(new OddMomentum()));
        assertTrue(e.getMessage().contains("optAverageUpdaters(false)"), e.getMessage());
        DataParallelTrainer t = f.trainer(LeNet.block(), null, 2, new OddMomentum(), ParameterAveraging.every(1));
        NDList b = f.batch(8);
        assertThrows(IllegalStateException.class, () -> t.trainStep(b.get(0), b.get(1)));
    }
}
