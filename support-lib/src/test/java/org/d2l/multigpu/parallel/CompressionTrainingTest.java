package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.assertReplicasBitIdentical;
import static org.d2l.multigpu.parallel.TrainerFixture.parameterBytes;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.util.Pair;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Ring;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The trainer reducing through the collective seam: plain collectives, and compressors as an option. */
class CompressionTrainingTest {

    private TrainerFixture f;

    @BeforeEach
    void setUp() {
        f = new TrainerFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private DataParallelTrainer trainer(DataParallelTrainer.Builder settings) {
        return f.closeLater(settings.build());
    }

    private DataParallelTrainer.Builder builder(Block net, Block like, int k) {
        f.initialize(net, like);
        return DataParallelTrainer.builder(net).setDevices(Devices.virtual(k)).optOptimizer(sgd(0.05f)).optProgress(false);
    }

    private ArrayDataset data(int batches, int batchSize) {
        NDList all = f.batch(batches * batchSize);
        return new ArrayDataset.Builder().setData(all.get(0)).optLabels(all.get(1)).setSampling(batchSize, false).build();
    }

    private static float[][] parameters(Block net) {
        return net.getParameters().stream().map(p -> p.getValue().getArray().toFloatArray()).toArray(float[][]::new);
    }

    @Test
    void theRingCollectiveTrainsTwoReplicasBitForBitAsTheDirectOne() {
        // two replicas: each chunk's sum is g0 + g1 in either order, and float addition commutes
        Block like = f.initialize(LeNet.block(), null);
        ArrayDataset d = data(4, 8);
        Block direct = LeNet.block();
        trainer(builder(direct, like, 2)).trainEpoch(d, null);
        Block ring = LeNet.block();
        EpochMetrics m = trainer(builder(ring, like, 2).optCollective(Collective.ring())).trainEpoch(d, null);
        float[][] a = parameters(direct);
        float[][] b = parameters(ring);
        for (int i = 0; i < a.length; i++) {
            assertArrayEquals(a[i], b[i], 0f, "parameter " + i);
        }
        // the ring's reduce: N in the reduce-scatter, then chunk 1 to replica 0; the broadcast: N
        long perStep = 0;
        for (Pair<String, Parameter> p : ring.getParameters()) {
            long n = p.getValue().getArray().size();
            perStep += 4 * (n + Ring.chunkSizes(n, 2)[1] + n);
        }
        assertEquals(4 * perStep, m.syncBytes());
    }

    @Test
    void float16CompressionSendsEachGradientOnceInHalfTheBytesAndNoParameters() {
        // uncompressed, 2 replicas move the gradients to the owner and the parameters back: 2 x 4 bytes per value;
        // compressed, each replica sends its gradients to the other in 2 bytes per value: 2 x 2
        Block net = LeNet.block();
        DataParallelTrainer t = trainer(builder(net, null, 2).optCompression(Compressor.float16(true)));
        EpochMetrics m = t.trainEpoch(data(3, 8), null);
        assertEquals(3 * parameterBytes(net), m.syncBytes());
        assertReplicasBitIdentical(t);
    }

    @Test
    void everyCompressorLeavesTheReplicasBitIdenticalAndSendsFewerBytes() {
        Block like = f.initialize(LeNet.block(), null);
        ArrayDataset d = data(4, 8);
        for (Compressor c : List.of(Compressor.oneBit(true), Compressor.threshold(1e-3, true),
                Compressor.powerSgd(2, 1, true), Compressor.oneBit(false))) {
            Block net = LeNet.block();
            DataParallelTrainer t = trainer(builder(net, like, 2).optCompression(c));
            EpochMetrics m = t.trainEpoch(d, null);
            assertReplicasBitIdentical(t);
            assertTrue(m.syncBytes() < 4 * parameterBytes(net), c.describe() + ": " + m.syncBytes() + " bytes in 4 steps");
            assertTrue(Double.isFinite(m.trainLoss()), c.describe());
            for (Pair<String, Parameter> p : net.getParameters()) {
                assertEquals(DataType.FLOAT32, p.getValue().getArray().getDataType());
            }
        }
    }

    @Test
    void compressionIsRefusedBeforeTrainingWhereItDoesNotApply() {
        Block net = LeNet.block();
        String pa = assertThrows(IllegalArgumentException.class, () -> builder(net, null, 2)
                .optSync(ParameterAveraging.every(2)).optCompression(Compressor.oneBit(true)).build()).getMessage();
        assertTrue(pa.contains("averages parameters"), pa);
        String zero = assertThrows(IllegalArgumentException.class, () -> builder(net, null, 2)
                .optSync(GradientAveraging.shardedState()).optCompression(Compressor.oneBit(true)).build()).getMessage();
        assertTrue(zero.contains("choose one"), zero);
        String pure = assertThrows(IllegalArgumentException.class, () -> builder(net, null, 2)
                .optDataType(DataType.FLOAT16).optMasterWeights(false).optCompression(Compressor.float16(true)).build())
                .getMessage();
        assertTrue(pure.contains("keep float32 master weights"), pure);
    }
}
