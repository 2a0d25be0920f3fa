package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.training.tracker.Tracker;
import java.util.Random;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.optimizer.Nesterov;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NesterovTest {

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private static Nesterov nesterov(float lr, float momentum) {
        return Nesterov.builder().setLearningRateTracker(Tracker.fixed(lr)).setMomentum(momentum).build();
    }

    @Test
    void twoStepsGiveTheWeightsComputedByHand() {
        Nesterov opt = nesterov(0.1f, 0.9f);
        NDArray w = f.manager.create(new float[] {1f, -2f});
        opt.update("w", w, f.manager.create(new float[] {0.5f, 0.25f}));
        // v = g = (0.5, 0.25); w -= 0.1 * (g + 0.9 v) = (0.095, 0.0475)
        assertArrayEquals(new float[] {0.905f, -2.0475f}, w.toFloatArray(), 1e-6f);
        opt.update("w", w, f.manager.create(new float[] {-1f, 0.5f}));
        // v = 0.9 (0.5, 0.25) + (-1, 0.5) = (-0.55, 0.725); w -= 0.1 * ((-1, 0.5) + 0.9 v) = (-0.1495, 0.11525)
        assertArrayEquals(new float[] {1.0545f, -2.16275f}, w.toFloatArray(), 1e-6f);
    }

    @Test
    void itFollowsDeeplearning4jsNesterovsUpdaterStepForStep() {
        float lr = 0.05f;
        float mu = 0.9f;
        Nesterov opt = nesterov(lr, mu);
        Random random = new Random(7);
        double[] w = {0.3, -0.7, 1.5};
        double[] v = new double[w.length]; // DL4J: v = mu v - lr g; w += -mu vPrev + (1 + mu) v
        NDArray weight = f.manager.create(new float[] {0.3f, -0.7f, 1.5f});
        for (int step = 0; step < 5; step++) {
            float[] g = new float[w.length];
            for (int i = 0; i < w.length; i++) {
                g[i] = (float) random.nextGaussian();
                double vPrev = v[i];
                v[i] = mu * vPrev - lr * g[i];
                w[i] += -mu * vPrev + (1 + mu) * v[i];
            }
            opt.update("w", weight, f.manager.create(g));
        }
        float[] got = weight.toFloatArray();
        for (int i = 0; i < w.length; i++) {
            assertEquals(w[i], got[i], 1e-5, "weight " + i);
        }
    }

    @Test
    void weightDecayAndRescalingEnterTheGradientAsInPyTorch() {
        Nesterov opt = Nesterov.builder().setLearningRateTracker(Tracker.fixed(0.1f)).setMomentum(0.5f)
                .optWeightDecays(0.01f).setRescaleGrad(2f).build();
        NDArray w = f.manager.create(new float[] {2f});
        opt.update("w", w, f.manager.create(new float[] {0.25f}));
        // g = 2 * 0.25 + 0.01 * 2 = 0.52; v = 0.52; w -= 0.1 * (0.52 + 0.5 * 0.52) = 0.078
        assertArrayEquals(new float[] {1.922f}, w.toFloatArray(), 1e-6f);
    }

    @Test
    void onFloat16WeightsTheUpdateIsFloat16AndAnUpdateBelowHalfTheSpacingIsLost() {
        Nesterov opt = nesterov(1f, 0.9f);
        NDArray w = f.manager.create(new float[] {1f, 1f}).toType(DataType.FLOAT16, false);
        // steps of 1.9e-4 and 1.9e-2: float16's spacing at 1 is 2^-10 (9.8e-4), so the first is lost
        opt.update("w", w, f.manager.create(new float[] {1e-4f, 1e-2f}).toType(DataType.FLOAT16, false));
        assertEquals(DataType.FLOAT16, w.getDataType());
        float[] got = w.toType(DataType.FLOAT32, false).toFloatArray();
        assertEquals(1f, got[0], 0f, "an update below half of float16's spacing changes nothing");
        assertEquals(1f - 0.019f, got[1], 1e-3f);
    }

    @Test
    void aMissingLearningRateOrAMomentumOutsideZeroToOneIsAClearError() {
        IllegalArgumentException noRate = assertThrows(IllegalArgumentException.class,
                () -> Nesterov.builder().setMomentum(0.9f).build());
        assertTrue(noRate.getMessage().contains("setLearningRateTracker"), noRate.getMessage());
        IllegalArgumentException noMomentum = assertThrows(IllegalArgumentException.class,
                () -> Nesterov.builder().setLearningRateTracker(Tracker.fixed(0.1f)).build());
        assertTrue(noMomentum.getMessage().contains("Optimizer.sgd()"), noMomentum.getMessage());
    }

    @Test
    void theTrainerAveragesItsVelocityAndTrainsPureFloat16WithIt() {
        assertEquals(1, OptimizerState.of(nesterov(0.1f, 0.9f)).kinds(), "the velocity is found as DJL's state");
        DataParallelTrainer averaged = f.trainer(LeNet.block(), null, 2, nesterov(0.05f, 0.9f), ParameterAveraging.every(1));
        Block net = LeNet.block();
        f.initialize(net, null);
        DataParallelTrainer pure = f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optOptimizer(nesterov(0.05f, 0.9f)).optProgress(false).optDataType(DataType.FLOAT16)
                .optMasterWeights(false).build());
        for (int step = 0; step < 3; step++) {
            NDList b = f.batch(16);
            averaged.trainStep(b.get(0), b.get(1));
            pure.trainStep(b.get(0), b.get(1));
        }
        TrainerFixture.assertReplicasBitIdentical(averaged);
        assertTrue(averaged.optimizerStateBytes()[0] > 0, "each worker keeps a velocity");
        String id = net.getParameters().valueAt(0).getId();
        assertEquals(DataType.FLOAT16, pure.replica(0).get(id).getDataType());
    }
}
