package org.d2l.multigpu.spark;

import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.io.Serializable;

/**
 * Builds each replica's optimizer where the replica lives (DJL optimizers are not serialisable):
 * {@link #sgd(float)} is the lessons' plain SGD, {@link #sgd(float, float)} adds momentum; any DJL
 * optimizer can be built, Adam and learning-rate schedules included (a lambda will do). A new
 * optimizer is built for every round and carries on where the partition's last one stopped: its
 * state (momentum, Adam's moments) is averaged over the partitions and broadcast with the
 * parameters, as DL4J's {@code averageUpdaters}, and its update count starts at the local steps the
 * partition has taken so far, so Adam's bias correction and schedules continue across rounds.
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
