package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.assertReplicasBitIdentical;
import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.d2l.multigpu.collective.Partition;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Gradient averaging with the optimizer state sharded over the replicas (ZeRO stage 1). */
class ShardedStateTest {

    private TrainerFixture f;

    @BeforeEach
    void setUp() {
        f = new TrainerFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private static Optimizer momentum() {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build();
    }

    private static Optimizer adam() {
        return Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.001f)).build();
    }

    /** Trains plain and sharded gradient averaging side by side for ten steps from the same parameters: bit for bit equal. */
    private void assertShardedMatchesPlain(int k, Supplier<Optimizer> optimizer) {
        Block plainNet = LeNet.block();
        DataParallelTrainer plain = f.trainer(plainNet, null, k, optimizer.get(), GradientAveraging.mean());
        Block shardedNet = LeNet.block();
        DataParallelTrainer sharded = f.trainer(shardedNet, plainNet, k, optimizer.get(), GradientAveraging.shardedState());
        for (int step = 0; step < 10; step++) {
            NDList b = f.batch(8 * k + 1); // uneven shards too
            plain.trainStep(b.get(0), b.get(1));
            sharded.trainStep(b.get(0), b.get(1));
            assertReplicasBitIdentical(sharded);
        }
        float diff = maxDifference(plainNet, shardedNet);
        assertTrue(diff == 0f, "sharded state on " + k + " replicas differs from plain by " + diff);
        Block fresh = f.initialize(LeNet.block(), null);
        assertTrue(maxDifference(fresh, plainNet) > 1e-3f, "training must have moved the parameters");
    }

    @Test
    void shardedStateEqualsPlainGradientAveragingWithMomentumOnTwoAndFourReplicas() {
        assertShardedMatchesPlain(2, ShardedStateTest::momentum);
        assertShardedMatchesPlain(4, ShardedStateTest::momentum);
    }

    @Test
    void shardedStateEqualsPlainGradientAveragingWithAdamOnTwoAndFourReplicas() {
        assertShardedMatchesPlain(2, ShardedStateTest::adam);
        assertShardedMatchesPlain(4, ShardedStateTest::adam);
    }

    /** The sizes of the block's trained parameters, in the block's order. */
    private static long[] trainedSizes(Block net) {
        return net.getParameters().stream().map(Pair::getValue).filter(Parameter::requiresGradient)
                .mapToLong(p -> p.getArray().size()).toArray();
    }

    @Test
    void eachReplicaHoldsTheStateOfExactlyTheParametersItOwns() {
        int k = 4;
        for (Object[] c : new Object[][] {{adam(), 8L}, {momentum(), 4L}}) { // bytes of state per element
            Block net = LeNet.block();
            DataParallelTrainer t = f.trainer(net, null, k, (Optimizer) c[0], GradientAveraging.shardedState());
            NDList b = f.batch(16);
            t.trainStep(b.get(0), b.get(1));
            long[] shares = Partition.of(trainedSizes(net), k).share();
            long[] expected = Arrays.stream(shares).map(s -> s * (long) c[1]).toArray();
            assertArrayEquals(expected, t.optimizerStateBytes(), c[0].getClass().getSimpleName());
            long total = Arrays.stream(trainedSizes(net)).sum() * (long) c[1];
            assertEquals(total, Arrays.stream(t.optimizerStateBytes()).sum());
        }
    }

    @Test
    void plainGradientAveragingKeepsAllOptimizerStateOnReplicaZero() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 3, adam(), GradientAveraging.mean());
        NDList b = f.batch(12);
        t.trainStep(b.get(0), b.get(1));
        long total = Arrays.stream(trainedSizes(net)).sum() * 8;
        assertArrayEquals(new long[] {total, 0, 0}, t.optimizerStateBytes());
    }

    @Test
    void parameterAveragingKeepsAWholeOptimizerStateOnEveryWorker() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, adam(), ParameterAveraging.every(1));
        NDList a = f.batch(8);
        NDList b = f.batch(8);
        t.trainRound(List.of(a.get(0), b.get(0)), List.of(a.get(1), b.get(1)));
        long total = Arrays.stream(trainedSizes(net)).sum() * 8;
        assertArrayEquals(new long[] {total, total}, t.optimizerStateBytes());
    }

    @Test
    void theEpochMetricsReportTheStateBytesOfEveryReplica() {
        Block net = LeNet.block();
        DataParallelTrainer t = f.trainer(net, null, 2, adam(), GradientAveraging.shardedState());
        EpochMetrics m = t.fit(f.quarters(32), null, 1).get(0);
        List<Long> expected = Arrays.stream(t.optimizerStateBytes()).boxed().toList();
        assertEquals(expected, m.optimizerStateBytes());
        assertEquals(Math.max(expected.get(0), expected.get(1)), m.largestOptimizerStateBytes());
        assertTrue(GradientAveraging.shardedState().describe().contains("ZeRO stage 1"));
    }
}
