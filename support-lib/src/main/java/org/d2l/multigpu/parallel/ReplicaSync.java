package org.d2l.multigpu.parallel;

import ai.djl.training.optimizer.Optimizer;

/**
 * How replicas are kept in step, one of two rules: {@link GradientAveraging} (one global batch split
 * over the replicas, gradients averaged every step) or {@link ParameterAveraging} (each replica takes
 * its own minibatch and its own optimizer step, parameters averaged every N rounds). A rule is a
 * setting without state: what it needs to remember (rounds since the last averaging) the trainer's
 * {@link Replicas} keep.
 */
public interface ReplicaSync {

    /**
     * Whether each replica takes a minibatch of its own, so that one round consumes k minibatches
     * (parameter averaging), rather than a shard of one global batch (gradient averaging).
     */
    default boolean ownMinibatches() {
        return false;
    }

    /** The factor applied to the mean loss of a shard of {@code shardSize} out of {@code batchSize} examples. */
    float lossWeight(long shardSize, long batchSize, int replicas);

    /**
     * Brings the replicas in step after a round in which the first {@code active} replicas computed
     * gradients (already recorded in {@code replicas}); returns the bytes it synchronised, 0 when
     * this round did not synchronise.
     */
    long step(Replicas replicas, Optimizer optimizer, int active);

    /**
     * Leaves every replica with the same parameters at the end of an epoch or when training stops,
     * and starts a new averaging period; returns the bytes synchronised, 0 when nothing was pending.
     */
    default long finish(Replicas replicas, Optimizer optimizer) {
        return 0;
    }

    /** One line stating the rule, for logs and notebooks. */
    String describe();
}
