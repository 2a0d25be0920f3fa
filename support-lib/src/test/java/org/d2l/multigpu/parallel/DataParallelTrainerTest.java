package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.assertReplicasBitIdentical;
import static org.d2l.multigpu.parallel.TrainerFixture.copyParameters;
import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.lesson.FromScratch;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DataParallelTrainerTest {

    private static final Shape IMAGE = TrainerFixture.IMAGE;

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private DataParallelTrainer trainer(Block net, Block like, int k, Optimizer opt, ReplicaSync sync) {
        return f.trainer(net, like, k, opt, sync);
    }

    private NDList batch(int n) {
        return f.batch(n);
    }

    private void assertEquivalentToOneReplica(int k, int batchSize, boolean concurrent) {
        Block one = LeNet.block();
        DataParallelTrainer t1 = trainer(one, null, 1, sgd(0.1f), GradientAveraging.mean());
        Block many = LeNet.block();
        many.initialize(f.manager, DataType.FLOAT32, IMAGE);
        copyParameters(one, many);
        DataParallelTrainer tk = DataParallelTrainer.builder(many).setDevices(Devices.virtual(k))
                .optOptimizer(sgd(0.1f)).optProgress(false).optConcurrent(concurrent).build();
        f.closeLater(tk);
        assertEquals(concurrent, tk.isConcurrent());
        for (int step = 0; step < 10; step++) {
            NDList b = batch(batchSize);
            t1.trainStep(b.get(0), b.get(1));
            tk.trainStep(b.get(0), b.get(1));
            assertReplicasBitIdentical(tk);
        }
        float diff = maxDifference(one, many);
        assertTrue(diff <= 1e-5f, k + " replicas differ from 1 replica by " + diff);
        // The comparison means something only if training moved the parameters.
        Block fresh = LeNet.block();
        fresh.initialize(f.manager, DataType.FLOAT32, IMAGE);
        assertTrue(maxDifference(fresh, one) > 1e-3f);
    }

    /**
     * Each step records every replica's phases: its shard, forward and backward, virtual replicas one after
     * another, then the synchronisation on both, the update on replica 0, which owns every parameter, and each
     * replica's gradients set back to zero.
     */
    @Test
    void eachStepRecordsEveryReplicasPhasesVirtualReplicasTakingTurns() {
        DataParallelTrainer t = trainer(LeNet.block(), null, 2, sgd(0.1f), GradientAveraging.mean());
        for (int step = 0; step < 3; step++) {
            NDList b = batch(16);
            t.trainStep(b.get(0), b.get(1));
        }
        List<StepPhases> steps = t.recentSteps();
        assertEquals(3, steps.size());
        StepPhases last = steps.get(2);
        for (int r = 0; r < 2; r++) {
            for (Phase phase : List.of(Phase.DATA, Phase.FORWARD, Phase.BACKWARD, Phase.SYNC)) {
                assertTrue(last.millis(r, phase) > 0, "replica " + r + " has no " + phase + ": " + last.spans());
            }
        }
        assertTrue(last.millis(0, Phase.UPDATE) > 0 && last.millis(1, Phase.UPDATE) > 0, last.spans().toString());
        assertTrue(last.start(1, Phase.UPDATE) >= last.end(0, Phase.UPDATE), "replica 1 zeroed its gradients too early");
        assertTrue(last.start(1, Phase.FORWARD) >= last.end(0, Phase.BACKWARD), "replica 1 began before replica 0 ended");
        assertTrue(last.start(0, Phase.SYNC) >= last.end(1, Phase.BACKWARD), "synchronised too early");
        assertTrue(steps.get(1).millisSince(steps.get(0)) > 0);
    }

    @Test
    void twoVirtualReplicasMatchOneReplicaForTenSteps() {
        assertEquivalentToOneReplica(2, 32, false);
    }

    @Test
    void fourVirtualReplicasMatchOneReplicaForTenSteps() {
        assertEquivalentToOneReplica(4, 32, false);
    }

    @Test
    void unevenShardsStillAverageOverTheGlobalBatch() {
        assertEquivalentToOneReplica(2, 7, false);
    }

    @Test
    void workerThreadsPerReplicaComputeTheSameAsOneReplica() {
        // The GPU path: one worker thread per replica under one gradient collector.
        assertEquivalentToOneReplica(2, 16, true);
    }

    @Test
    void summedGradientsActLikeAMultipliedLearningRate() {
        Block mean = LeNet.block();
        DataParallelTrainer tMean = trainer(mean, null, 2, sgd(0.2f), GradientAveraging.mean());
        Block sum = LeNet.block();
        DataParallelTrainer tSum = trainer(sum, mean, 2, sgd(0.1f), GradientAveraging.sum());
        NDList b = batch(16);
        tMean.trainStep(b.get(0), b.get(1));
        tSum.trainStep(b.get(0), b.get(1));
        assertTrue(maxDifference(mean, sum) <= 1e-6f, "sum of 2 replicas at lr 0.1 != mean at lr 0.2");
    }

    @Test
    void theOptimizerUpdatesOncePerGlobalStep() {
        List<Integer> seen1 = Collections.synchronizedList(new ArrayList<>());
        List<Integer> seen4 = Collections.synchronizedList(new ArrayList<>());
        Block one = LeNet.block();
        DataParallelTrainer t1 = trainer(one, null, 1, recordingSgd(seen1), GradientAveraging.mean());
        DataParallelTrainer t4 = trainer(LeNet.block(), one, 4, recordingSgd(seen4), GradientAveraging.mean());
        for (int step = 0; step < 3; step++) {
            NDList b = batch(8);
            t1.trainStep(b.get(0), b.get(1));
            t4.trainStep(b.get(0), b.get(1));
        }
        int numTrained = (int) one.getParameters().stream().filter(p -> p.getValue().requiresGradient()).count();
        assertEquals(3 * numTrained, seen4.size(), "tracker calls: one per parameter per global step");
        assertEquals(seen1, seen4);
        assertEquals(3, seen4.stream().mapToInt(Integer::intValue).max().getAsInt());
        assertEquals(3, t4.getSteps());
    }

    private static Optimizer recordingSgd(List<Integer> seen) {
        Tracker tracker = numUpdate -> {
            seen.add(numUpdate);
            return 0.05f;
        };
        return Optimizer.sgd().setLearningRateTracker(tracker).build();
    }

    @Test
    void resnet18OnTwoReplicasAveragesBatchNormRunningStatistics() {
        Block net = ResNet.resnet18(10, 1);
        net.initialize(f.manager, DataType.FLOAT32, IMAGE);
        Block probe = ResNet.resnet18(10, 1);
        probe.initialize(f.manager, DataType.FLOAT32, IMAGE);
        copyParameters(net, probe);
        NDList b = batch(6);
        // What each replica's running statistics become when it sees only its own shard.
        List<Parameter> running = new ArrayList<>();
        for (Pair<String, Parameter> p : probe.getParameters()) {
            if (!p.getValue().requiresGradient()) {
                running.add(p.getValue());
            }
        }
        assertFalse(running.isEmpty());
        List<float[]> expected = new ArrayList<>();
        for (Parameter p : running) {
            expected.add(new float[(int) p.getArray().size()]);
        }
        FromScratch.Shards shards = FromScratch.splitBatch(b.get(0), b.get(1), Devices.virtual(2));
        for (int i = 0; i < 2; i++) {
            ReplicaStore store = ReplicaStore.copyOf(probe, Device.cpu(), f.manager, false);
            probe.forward(store, new NDList(shards.x().get(i)), true);
            for (int j = 0; j < running.size(); j++) {
                float[] v = store.get(running.get(j).getId()).toFloatArray();
                for (int e = 0; e < v.length; e++) {
                    expected.get(j)[e] += v[e] / 2;
                }
            }
        }
        DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optLearningRate(0.05f).optProgress(false).build();
        f.closeLater(t);
        t.trainStep(b.get(0), b.get(1));
        ai.djl.nn.ParameterList netParams = net.getParameters();
        int j = 0;
        for (Pair<String, Parameter> p : netParams) {
            if (!p.getValue().requiresGradient()) {
                float[] got = t.replica(1).get(p.getValue().getId()).toFloatArray();
                assertArrayEquals(expected.get(j), got, 1e-5f, "running statistic " + p.getKey());
                j++;
            }
        }
        assertReplicasBitIdentical(t);
        for (int step = 0; step < 2; step++) {
            NDList more = batch(6);
            StepResult r = t.trainStep(more.get(0), more.get(1));
            assertTrue(Double.isFinite(r.lossSum()));
            assertReplicasBitIdentical(t);
        }
    }

    @Test
    void aBatchSmallerThanTheReplicasTrainsThoseWithExamplesAsOneDeviceWould() {
        Block one = LeNet.block();
        DataParallelTrainer t1 = trainer(one, null, 1, sgd(0.1f), GradientAveraging.mean());
        Block four = LeNet.block();
        DataParallelTrainer t4 = trainer(four, one, 4, sgd(0.1f), GradientAveraging.mean());
        for (int n : new int[] {3, 1, 2, 8, 3}) {
            NDList b = batch(n);
            StepResult r = t4.trainStep(b.get(0), b.get(1));
            t1.trainStep(b.get(0), b.get(1));
            assertEquals(n, r.examples());
            assertReplicasBitIdentical(t4); // the replicas without examples received the update too
        }
        float diff = maxDifference(one, four);
        assertTrue(diff <= 1e-5f, "4 replicas on batches of 3, 1 and 2 differ from 1 device by " + diff);
    }

    @Test
    void anEpochWhoseLastBatchIsSmallerThanTheReplicasEqualsOneDevice() {
        // 17 examples in batches of 8: the last batch holds 1 example for 2 replicas
        ArrayDataset data = TrainerFixture.quarters(f.manager, 17, 8, false);
        Block one = LeNet.block();
        DataParallelTrainer t1 = trainer(one, null, 1, sgd(0.2f), GradientAveraging.mean());
        Block two = LeNet.block();
        DataParallelTrainer t2 = trainer(two, one, 2, sgd(0.2f), GradientAveraging.mean());
        EpochMetrics m1 = t1.trainEpoch(data, null);
        EpochMetrics m2 = t2.trainEpoch(data, null);
        assertEquals(3, m2.steps());
        assertEquals(m1.trainLoss(), m2.trainLoss(), 1e-5);
        float diff = maxDifference(one, two);
        assertTrue(diff <= 1e-5f, "2 replicas differ from 1 device by " + diff);
        assertReplicasBitIdentical(t2);
    }

    @Test
    void closeFreesTheParametersTheTrainerInitialisedButNotTheCallers() {
        Block made = LeNet.block();
        DataParallelTrainer t = DataParallelTrainer.builder(made).setDevices(Devices.virtual(2))
                .optInputShape(IMAGE).optLearningRate(0.1f).optProgress(false).build();
        NDArray w = made.getParameters().valueAt(0).getArray();
        NDList b = batch(4);
        t.trainStep(b.get(0), b.get(1));
        t.close();
        assertTrue(w.isReleased(), "the parameters the trainer initialised outlived close()");
        Block mine = f.initialize(LeNet.block(), null);
        NDArray v = mine.getParameters().valueAt(0).getArray();
        DataParallelTrainer u = trainer(mine, null, 2, sgd(0.1f), GradientAveraging.mean());
        u.trainStep(b.get(0), b.get(1));
        u.close();
        assertFalse(v.isReleased(), "close() freed parameters the caller initialised");
        assertTrue(Float.isFinite(v.sum().getFloat()), "the caller's block is still usable");
    }

    @Test
    void zeroReplicasIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(List.of()));
        assertTrue(e.getMessage().contains("at least one device"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Devices.virtual(0));
        assertThrows(IllegalArgumentException.class, () -> Devices.of(0));
    }

    @Test
    void aDeviceThatDoesNotExistIsAClearError() {
        Device missing = Device.gpu(Devices.gpuCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(List.of(missing)));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void nanLossStopsTrainingAndLeavesTheParametersAsTheyWere() {
        Block net = LeNet.block();
        DataParallelTrainer t = trainer(net, null, 2, sgd(0.1f), GradientAveraging.mean());
        NDList good = batch(8);
        t.trainStep(good.get(0), good.get(1));
        Block before = LeNet.block();
        before.initialize(f.manager, DataType.FLOAT32, IMAGE);
        copyParameters(net, before);
        NDArray x = good.get(0).duplicate();
        x.set(new ai.djl.ndarray.index.NDIndex("0, 0, 0, 0"), Float.NaN);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.trainStep(x, good.get(1)));
        assertTrue(e.getMessage().contains("NaN"), e.getMessage());
        assertEquals(0f, maxDifference(before, net));
        // and training can go on from there
        t.trainStep(good.get(0), good.get(1));
        assertTrue(maxDifference(before, net) > 0);
    }

    @Test
    void fitReturnsOneRowOfMetricsPerEpochAndLearns() {
        ArrayDataset data = TrainerFixture.quarters(f.manager, 64, 16, true);
        Block net = LeNet.block();
        DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optInputShape(IMAGE).optLearningRate(0.5f).optProgress(false).build();
        f.closeLater(t);
        List<EpochMetrics> h = t.fit(data, data, 8);
        assertEquals(8, h.size());
        assertEquals(8, h.get(7).epoch());
        assertTrue(h.get(7).trainLoss() < h.get(0).trainLoss(), EpochMetrics.table(h));
        assertTrue(h.get(7).testAccuracy() > 0.9, EpochMetrics.table(h));
        assertTrue(h.get(0).examplesPerSecond() > 0 && h.get(0).seconds() > 0);
        assertEquals(32, t.getSteps());
        assertEquals(4, h.get(0).steps(), "64 examples in batches of 16: 4 steps an epoch");
        for (EpochMetrics m : h) { // the median of 4 step times lies between the shortest and the longest
            assertTrue(m.medianStepSeconds() > 0 && m.medianStepSeconds() < m.seconds(), EpochMetrics.table(h));
        }
    }

    @Test
    void anUninitialisedBlockWithoutInputShapeIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(1))
                        .optLearningRate(0.1f).build());
        assertTrue(e.getMessage().contains("optInputShape"), e.getMessage());
    }


    @Test
    void stepsDoNotPileUpArraysInTheManagersOfTheReplicas() {
        Block net = LeNet.block();
        DataParallelTrainer t = trainer(net, null, 2, sgd(0.1f), GradientAveraging.mean());
        String id = net.getParameters().valueAt(0).getId();
        NDManager own = t.replica(0).get(id).getManager();
        NDManager copies = t.replica(1).get(id).getManager();
        NDList b = batch(8);
        t.trainStep(b.get(0), b.get(1)); // the first step creates the gradients
        int ownBefore = own.getManagedArrays().size();
        int copiesBefore = copies.getManagedArrays().size();
        for (int step = 0; step < 5; step++) {
            t.trainStep(b.get(0), b.get(1));
        }
        assertEquals(ownBefore, own.getManagedArrays().size(), "arrays left with the block's parameters");
        assertEquals(copiesBefore, copies.getManagedArrays().size(), "arrays left with the replica copies");
    }

    @Test
    void trainingWorksOnAThreadOtherThanTheOneThatStartedTheEngine() throws Exception {
        // PyTorch records gradients per thread, on by default; DJL turns recording off only on the
        // thread that started the engine. A kernel may run a cell on any thread.
        Block net = LeNet.block();
        DataParallelTrainer t = trainer(net, null, 2, sgd(0.1f), GradientAveraging.mean());
        NDList b = batch(8);
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            boolean recordingThere = other.submit(org.d2l.multigpu.runtime.NoGrad::recording).get();
            assertTrue(recordingThere, "a new thread should start with gradient recording on");
            StepResult r = other.submit(() -> t.trainStep(b.get(0), b.get(1))).get();
            assertTrue(Double.isFinite(r.lossSum()));
            List<NDArray> ps = new ArrayList<>();
            for (Pair<String, Parameter> p : net.getParameters()) {
                NDArray a = p.getValue().getArray().duplicate();
                a.setRequiresGradient(true);
                ps.add(a);
            }
            other.submit(() -> {
                for (NDArray a : ps) {
                    a.getGradient().set(new ai.djl.ndarray.index.NDIndex("..."), 1f);
                }
                FromScratch.sgd(ps, 0.1f, 1);
            }).get();
        } finally {
            other.shutdownNow();
        }
        assertReplicasBitIdentical(t);
    }
}
