package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AccumulationTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private DataParallelTrainer trainer(Block net, Block like, int k, int accumulate) {
        f.initialize(net, like);
        return f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(k)).optOptimizer(sgd(0.1f))
                .optProgress(false).optAccumulate(accumulate).build());
    }

    // Tolerance: float32 rounding. The micro-batches' gradients are added up in the replicas, then over the replicas,
    // where one device adds them in one sum over the batch: the same terms in another order, which moves a sum of n
    // terms by about sqrt(n) u of its size (u = 2^-24; Higham and Mary 2019) and at most gamma(n) = n u / (1 - n u);
    // with n = 32 examples, sqrt(n) u = 3.4e-7. 1e-5 of the parameters' own move leaves room for 3 steps to carry it.
    private static final double ROUNDING = 1e-5;

    @Test
    void fourMicroBatchesOfEightOnTwoReplicasEqualOneBatchOf32OnOneDeviceUpToRounding() {
        NDList b = f.batch(32);
        Block start = f.initialize(LeNet.block(), null);
        Block one = LeNet.block();
        DataParallelTrainer whole = trainer(one, start, 1, 1);
        Block micro = LeNet.block();
        DataParallelTrainer accumulated = trainer(micro, start, 2, 4);
        for (int s = 0; s < 3; s++) {
            double l1 = whole.trainStep(b.get(0), b.get(1)).lossSum();
            double l4 = accumulated.trainStep(b.get(0), b.get(1)).lossSum();
            assertEquals(l1, l4, 1e-4 * Math.abs(l1), "step " + s + ": the step's summed loss");
        }
        double moved = TrainerFixture.maxDifference(one, start);
        double apart = TrainerFixture.maxDifference(micro, one);
        assertTrue(moved > 1e-3, "training did not move the parameters");
        assertTrue(apart <= ROUNDING * moved, "accumulated " + apart + " from one batch, which moved " + moved);
        assertEquals(3, accumulated.getSteps(), "3 optimizer steps, not 12");
        TrainerFixture.assertReplicasBitIdentical(accumulated);
    }

    @Test
    void accumulatingFourMicroBatchesSynchronisesAQuarterOfTheBytesPerExample() {
        ArrayDataset small = TrainerFixture.quarters(f.manager, 64, 8, false);
        ArrayDataset large = TrainerFixture.quarters(f.manager, 64, 32, false);
        EpochMetrics every = trainer(LeNet.block(), null, 2, 1).trainEpoch(small, null);
        EpochMetrics accumulated = trainer(LeNet.block(), null, 2, 4).trainEpoch(large, null);
        assertEquals(8, every.syncs());
        assertEquals(2, accumulated.syncs());
        assertEquals(64, every.steps() * 8);
        assertEquals(every.syncBytes(), 4 * accumulated.syncBytes(), "bytes synchronised for the same 64 examples");
    }

    @Test
    void accumulationIsRefusedWithParameterAveragingAndABatchSmallerThanTheMicroBatches() {
        IllegalArgumentException pa = assertThrows(IllegalArgumentException.class, () -> DataParallelTrainer
                .builder(f.initialize(LeNet.block(), null)).setDevices(Devices.virtual(2)).optOptimizer(sgd(0.1f))
                .optSync(ParameterAveraging.every(3)).optAccumulate(4).build());
        assertTrue(pa.getMessage().contains("optAccumulate(4) is for gradient averaging"), pa.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DataParallelTrainer.builder(LeNet.block()).optAccumulate(0));
        Block net = LeNet.block();
        DataParallelTrainer t = trainer(net, null, 2, 4);
        Block before = f.initialize(LeNet.block(), net);
        NDList b = f.batch(3);
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class, () -> t.trainStep(b.get(0), b.get(1)));
        assertTrue(small.getMessage().contains("A batch of 3 example(s) cannot be split into 4 micro-batches"),
                small.getMessage());
        assertEquals(0f, TrainerFixture.maxDifference(before, net), "the refused step changed the parameters");
    }
}
