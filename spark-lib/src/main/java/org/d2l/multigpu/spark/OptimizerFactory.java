package org.d2l.multigpu.spark;

import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.io.Serializable;

/**
 * Builds each replica's optimizer where the replica lives (DJL optimizers are not serialisable);
 * {@link #sgd(float)} is the lessons' plain SGD, which keeps no state between steps.
 */
public interface OptimizerFactory extends Serializable {

    /** A new optimizer. */
    Optimizer newOptimizer();

    /** Plain minibatch SGD with the fixed learning rate {@code lr}. */
    static OptimizerFactory sgd(float lr) {
        if (!(lr > 0) || Float.isInfinite(lr)) {
            throw new IllegalArgumentException("The learning rate must be a positive number, got " + lr + ".");
        }
        return new Sgd(lr);
    }

    /** Plain SGD with a fixed learning rate {@code lr}. */
    record Sgd(float lr) implements OptimizerFactory {
        @Override
        public Optimizer newOptimizer() {
            return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build();
        }
    }
}
