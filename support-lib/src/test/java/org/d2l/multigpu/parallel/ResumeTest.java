package org.d2l.multigpu.parallel;

import ai.djl.ndarray.types.DataType;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.precision.LossScaler;
import org.junit.jupiter.api.Test;

/**
 * A run resumed from a checkpoint in a new trainer ends with the parameters (bit for bit, every replica)
 * and the history of a run that was never broken, on one device and on virtual replicas, for each rule
 * and precision: the new trainer starts from other weights and another data order seed, so only what the
 * checkpoint holds can make it equal.
 */
class ResumeTest extends WithResumeFixture {

    private static Optimizer momentum() {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build();
    }

    private static Optimizer adam() {
        return Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.002f)).build();
    }

    @Test
    void gradientAveragingWithMomentumOnOneDeviceResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(1, 4, 2, dir.resolve("a"), dir.resolve("b"), b -> b.optOptimizer(momentum()));
    }

    @Test
    void gradientAveragingWithMomentumOnTwoReplicasResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(2, 4, 1, dir.resolve("a"), dir.resolve("b"), b -> b.optOptimizer(momentum()));
    }

    @Test
    void parameterAveragingWithAdamResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(2, 3, 2, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(adam()).optSync(ParameterAveraging.every(2)));
    }

    @Test
    void float16WithMasterWeightsAndAGrowingLossScaleResumesToTheUnbrokenRun() {
        // the scale doubles after every 3 good steps: its good steps in a row are part of the state
        r.assertResumeEqualsUnbroken(2, 3, 1, dir.resolve("a"), dir.resolve("b"), b -> b.optOptimizer(adam())
                .optDataType(DataType.FLOAT16).optLossScaler(LossScaler.of(1024f, 3)));
    }

    @Test
    void pureFloat16ResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(2, 3, 2, dir.resolve("a"), dir.resolve("b"), b -> b.optOptimizer(momentum())
                .optDataType(DataType.FLOAT16).optMasterWeights(false));
    }

    @Test
    void gradientAccumulationOnTwoReplicasResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(2, 3, 1, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(momentum()).optAccumulate(2));
    }

    @Test
    void shardedOptimizerStateResumesToTheUnbrokenRun() {
        r.assertResumeEqualsUnbroken(2, 3, 2, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(adam()).optSync(GradientAveraging.shardedState()));
    }

    @Test
    void oneBitCompressionWithErrorFeedbackResumesToTheUnbrokenRun() {
        // the residuals carry what was not sent: a resumed run without them would send other updates
        r.assertResumeEqualsUnbroken(2, 3, 1, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(momentum()).optCompression(Compressor.oneBit(true)));
    }

    @Test
    void thresholdCompressionResumesToTheUnbrokenRun() {
        // each replica's adapted threshold, its residual and the steps to the next clipping are state
        r.assertResumeEqualsUnbroken(2, 3, 2, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(momentum()).optCompression(Compressor.threshold(1e-3, true)));
    }

    @Test
    void powerSgdCompressionResumesToTheUnbrokenRun() {
        // Q (warm start), the residuals and the step count (plain steps first) are state
        r.assertResumeEqualsUnbroken(2, 3, 1, dir.resolve("a"), dir.resolve("b"),
                b -> b.optOptimizer(adam()).optCompression(Compressor.powerSgd(2, 3, true)));
    }
}
