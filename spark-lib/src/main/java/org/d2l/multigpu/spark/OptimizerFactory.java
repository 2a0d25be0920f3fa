package org.d2l.multigpu.spark;

import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.io.Serializable;

/**
 * Builds each replica's optimizer where the replica lives (DJL optimizers are not serialisable):
 * {@link #sgd(float)} is the lessons' plain SGD, {@link #sgd(float, float)} adds momentum, whose
 * state the trainer averages and broadcasts with the parameters. A new optimizer is built for every
 * round, so its update count starts afresh: use a fixed learning rate (no schedule, no Adam).
 */
public interface OptimizerFactory extends Serializable {

    /** A new optimizer. */
    Optimizer newOptimizer();

    /** Plain minibatch SGD with the fixed learning rate {@code lr}. */
    static OptimizerFactory sgd(float lr) {
        return sgd(lr, 0f);
    }

    /** SGD with the fixed learning rate {@code lr} and momentum {@code momentum} (0 for none). */
    static OptimizerFactory sgd(float lr, float momentum) {
        if (!(lr > 0) || Float.isInfinite(lr)) {
            throw new IllegalArgumentException("The learning rate must be a positive number, got " + lr + ".");
        }
        if (!(momentum >= 0 && momentum < 1)) {
            throw new IllegalArgumentException("The momentum must be in [0, 1), got " + momentum + ".");
        }
        return new Sgd(lr, momentum);
    }

    /** SGD with a fixed learning rate {@code lr} and momentum {@code momentum}. */
    record Sgd(float lr, float momentum) implements OptimizerFactory {
        @Override
        public Optimizer newOptimizer() {
            var b = Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr));
            if (momentum > 0) {
                b.optMomentum(momentum);
            }
            return b.build();
        }
    }
}
