package org.d2l.multigpu.parallel;

import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * How replicas are kept in step, one of two rules: {@link GradientAveraging} (one global batch split
 * over the replicas, gradients averaged every step) or {@link ParameterAveraging} (each replica takes
 * its own minibatch and its own optimizer step, parameters averaged every N rounds).
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
     * Brings the replicas in step after a step's backward passes, in which the first {@code active}
     * replicas computed gradients ({@code params} are the block's parameters; replica 0 holds the
     * block's own arrays); returns the bytes it synchronised, 0 when this step did not synchronise.
     */
    long step(List<ReplicaStore> replicas, List<Parameter> params, Optimizer optimizer, int active);

    /**
     * Leaves every replica with the same parameters at the end of an epoch or when training stops,
     * and starts a new averaging period; returns the bytes synchronised, 0 when nothing was pending.
     */
    default long finish(List<ReplicaStore> replicas, List<Parameter> params, Optimizer optimizer) {
        return 0;
    }

    /** One line stating the rule, for logs and notebooks. */
    String describe();
}
