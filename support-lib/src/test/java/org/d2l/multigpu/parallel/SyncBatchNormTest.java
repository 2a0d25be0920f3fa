package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.d2l.multigpu.collective.BatchNormGroup;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.models.SyncBatchNorm;
import org.d2l.multigpu.runtime.ErrorBound;
import org.d2l.multigpu.runtime.JavaBuffers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SyncBatchNormTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /**
     * Conv 8@3x3, BatchNorm, ReLU, 2x2 average pooling, dense 32, BatchNorm, ReLU, dense 10: BatchNorm over
     * channels of images and over the features of a dense layer.
     */
    private static Block smallNet() {
        return new SequentialBlock()
                .add(Conv2d.builder().setFilters(8).setKernelShape(new Shape(3, 3)).build())
                .add(BatchNorm.builder().build())
                .add(Activation::relu)
                .add(Pool.avgPool2dBlock(new Shape(2, 2), new Shape(2, 2)))
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(32).build())
                .add(BatchNorm.builder().build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(10).build());
    }

    /** {@code net} on {@code k} virtual replicas after {@code steps} steps on {@code b}, starting from {@code like}. */
    private DataParallelTrainer trained(Block net, Block like, int k, boolean sync, NDList b, int steps) {
        f.initialize(net, like);
        DataParallelTrainer t = f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                .optOptimizer(sgd(0.1f)).optProgress(false).optSyncBatchNorm(sync).build());
        for (int s = 0; s < steps; s++) {
            t.trainStep(b.get(0), b.get(1));
        }
        return t;
    }

    /**
     * How far each run's parameters (running statistics included) end from the reference's, relative to
     * how far the reference moved from the start: max |w - w_ref| / max |w_ref - w_start|.
     */
    private static double relative(Block run, Block reference, Block start) {
        return TrainerFixture.maxDifference(run, reference) / (double) TrainerFixture.maxDifference(reference, start);
    }

    private void syncedReplicasTrainLikeOneDevice(Supplier<Block> network, int batch, int steps, double tolerance) {
        NDList b = f.batch(batch);
        Block start = f.initialize(network.get(), null);
        Block one = network.get();
        trained(one, start, 1, false, b, steps);
        Block plain = network.get();
        trained(plain, start, 2, false, b, steps);
        double unsynced = relative(plain, one, start);
        StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "2 replicas without sync: %.3g", unsynced));
        for (int k : new int[] {2, 4}) {
            Block synced = SyncBatchNorm.convert(network.get());
            DataParallelTrainer t = trained(synced, start, k, true, b, steps);
            double d = relative(synced, one, start);
            report.append(String.format(Locale.ROOT, "; %d synced replicas: %.3g", k, d));
            assertTrue(d <= tolerance, report.toString());
            TrainerFixture.assertReplicasBitIdentical(t);
        }
        // Without synchronisation each replica normalises its own shard: far from 1 device, beyond rounding.
        assertTrue(unsynced > 10 * tolerance, report.toString());
    }

    // Tolerance: float32 rounding, not a measured gap. One device and k synchronised replicas compute the same
    // sums (batch statistics, gradients) in another order: k partial sums added at the end instead of one running
    // sum, the variance as within- plus between-shard parts. A sum of n terms reordered moves by at most
    // gamma(n) = n u / (1 - n u) of its terms' absolute sum (u = 2^-24) and, as rounding errors take either sign,
    // by about sqrt(n) u in practice (Higham and Mary, SIAM J. Sci. Comput. 2019); for the longest sums here, the
    // statistics over B H W values per channel (n up to 64 x 26 x 26 = 43,264), sqrt(n) u = 1.2e-5. A relative
    // difference of 1e-4 of the parameters' own move, about 8 times that, leaves room for 2 or 3 steps to carry it;
    // a replica that normalises with its own shard's statistics misses the global ones by far more.
    private static final double ROUNDING = 1e-4;

    @Test
    void aSmallBatchNormNetworkOnTwoAndFourSyncedReplicasTrainsLikeOneDeviceAndUnsyncedItDoesNot() {
        syncedReplicasTrainLikeOneDevice(SyncBatchNormTest::smallNet, 64, 3, ROUNDING);
    }

    @Test
    void resNet18OfWidth16OnTwoAndFourSyncedReplicasTrainsLikeOneDeviceAndUnsyncedItDoesNot() {
        syncedReplicasTrainLikeOneDevice(() -> ResNet.resnet18(10, 1, 16), 16, 2, ROUNDING);
    }

    /**
     * One replica's input and gamma gradients through SyncBatchNorm, with Java's unreachable buffers freed
     * and their memory reused between the forward and the backward pass, match BatchNorm's in float64
     * within float32 rounding: every scalar the backward pass reads must still hold its value.
     */
    @Test
    void theGradientThroughSyncBatchNormIsBatchNormsAfterJavaBuffersAreFreedAndReused() throws Exception {
        Shape shape = new Shape(16, 4, 5, 5);
        NDArray x0 = f.manager.randomNormal(shape).mul(3).add(2);
        NDArray dy = f.manager.randomNormal(shape);
        NDArray[] reference = gradients(x0.toType(DataType.FLOAT64, false), dy, false);
        NDArray[] synced = gradients(x0, dy, true);
        // Tolerance: float32 rounding. Each gradient is a few sums of n = 16 x 5 x 5 = 400 products per
        // channel; gamma(n) = n u / (1 - n u) (u = 2^-24) bounds each sum's relative error; 4 gamma(n) = 9.5e-5
        // covers the few sums chained. A scalar read from reused memory makes it NaN or far off.
        double tolerance = 4 * ErrorBound.gamma(400, ErrorBound.FLOAT32_U);
        String[] names = {"input", "gamma"};
        for (int i = 0; i < 2; i++) {
            NDArray want = reference[i];
            NDArray got = synced[i].toType(DataType.FLOAT64, false);
            double rel = got.sub(want).norm().getDouble() / want.norm().getDouble();
            assertTrue(rel <= tolerance, names[i] + " gradient off by " + rel + " (relative), beyond " + tolerance);
        }
    }

    /** The input and gamma gradients of sum(BatchNorm(x) * dy), through SyncBatchNorm on one replica or BatchNorm. */
    private NDArray[] gradients(NDArray x0, NDArray dy, boolean synced) throws Exception {
        BatchNorm bn = BatchNorm.builder().build();
        Block block = synced ? new SyncBatchNorm(bn) : bn;
        block.initialize(f.manager, x0.getDataType(), x0.getShape());
        NDArray x = x0.duplicate();
        x.setRequiresGradient(true);
        NDArray gamma = bn.getParameters().get("gamma").getArray();
        gamma.setRequiresGradient(true);
        ParameterStore store = new ParameterStore(f.manager, false);
        if (synced) {
            BatchNormGroup group = new BatchNormGroup(60);
            group.beginStep(1);
            store = group.storeFor(0, store);
        }
        try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            NDArray y = block.forward(store, new NDList(x), true).head();
            List<ByteBuffer> reuse = JavaBuffers.freeAndReuseWithNaN();
            gc.backward(y.mul(dy.toType(y.getDataType(), false)).sum());
            assertEquals(1000, reuse.size());
        }
        return new NDArray[] {x.getGradient(), gamma.getGradient()};
    }

    @Test
    void evaluationUsesRunningStatisticsEqualToOneDevicesOnEveryReplica() {
        NDList b = f.batch(32);
        Block start = f.initialize(smallNet(), null);
        Block one = smallNet();
        trained(one, start, 1, false, b, 3);
        Block synced = SyncBatchNorm.convert(smallNet());
        DataParallelTrainer t = trained(synced, start, 2, true, b, 3);
        NDArray expected = one.forward(new ParameterStore(f.manager, false), new NDList(b.get(0)), false).head();
        NDArray got = synced.forward(new ParameterStore(f.manager, false), new NDList(b.get(0)), false).head();
        double scale = expected.abs().max().getFloat();
        assertTrue(got.sub(expected).abs().max().getFloat() <= ROUNDING * scale, "evaluation outputs differ");
        for (var p : synced.getParameters()) {
            if (p.getKey().endsWith("running_mean") || p.getKey().endsWith("runningMean")
                    || p.getKey().endsWith("runningVar")) {
                assertTrue(t.replica(1).get(p.getValue().getId()).contentEquals(t.replica(0).get(p.getValue().getId())),
                        p.getKey() + " differs between the replicas");
            }
        }
    }

    @Test
    void convertKeepsTheParametersNamesAndOutsideATrainerComputesWhatBatchNormComputes() {
        NDList b = f.batch(8);
        Block plain = f.initialize(smallNet(), null);
        List<String> names = plain.getParameters().keys();
        NDArray before = plain.forward(new ParameterStore(f.manager, false), new NDList(b.get(0)), true).head();
        Block converted = SyncBatchNorm.convert(smallNet());
        f.initialize(converted, plain);
        assertEquals(names, converted.getParameters().keys());
        assertEquals(2, SyncBatchNorm.count(converted)[0]);
        assertEquals(0, SyncBatchNorm.count(converted)[1]);
        NDArray after = converted.forward(new ParameterStore(f.manager, false), new NDList(b.get(0)), true).head();
        assertTrue(before.contentEquals(after), "outside a synchronised trainer SyncBatchNorm is BatchNorm");
    }

    @Test
    void settingsThatCannotSynchroniseAreRefusedBeforeTraining() {
        Block net = f.initialize(smallNet(), null);
        IllegalArgumentException unconverted = assertThrows(IllegalArgumentException.class, () ->
                DataParallelTrainer.builder(net).setDevices(Devices.virtual(2)).optOptimizer(sgd(0.1f))
                        .optSyncBatchNorm(true).build());
        assertTrue(unconverted.getMessage().contains("2 BatchNorm block(s) that are not SyncBatchNorm"),
                unconverted.getMessage());
        assertTrue(unconverted.getMessage().contains("SyncBatchNorm.convert(net)"), unconverted.getMessage());
        Block converted = SyncBatchNorm.convert(f.initialize(smallNet(), null));
        IllegalArgumentException averaging = assertThrows(IllegalArgumentException.class, () ->
                DataParallelTrainer.builder(converted).setDevices(Devices.virtual(2)).optOptimizer(sgd(0.1f))
                        .optSync(ParameterAveraging.every(2)).optSyncBatchNorm(true).build());
        assertTrue(averaging.getMessage().contains("needs gradient averaging"), averaging.getMessage());
        IllegalArgumentException half = assertThrows(IllegalArgumentException.class, () ->
                DataParallelTrainer.builder(converted).setDevices(Devices.virtual(2)).optOptimizer(sgd(0.1f))
                        .optDataType(DataType.FLOAT16).optSyncBatchNorm(true).build());
        assertTrue(half.getMessage().contains("FLOAT32 only"), half.getMessage());
    }
}
