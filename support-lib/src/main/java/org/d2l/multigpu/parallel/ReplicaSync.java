package org.d2l.multigpu.parallel;

import ai.djl.training.optimizer.Optimizer;
import org.d2l.multigpu.optimizer.OptimizerState;

/**
 * How replicas are kept in step, one of two rules: {@link GradientAveraging} (one global batch split
 * over the replicas, gradients averaged every step) or {@link ParameterAveraging} (each replica takes
 * its own minibatch and its own optimizer step, parameters averaged every N rounds). A rule is a
 * setting without state: what it needs to remember (rounds since the last averaging) the trainer's
 * {@link ReplicaParameters} keep.
 *
 * <p>A synchronisation's bytes are what the replicas' {@link org.d2l.multigpu.collective.Collective} moved
 * ({@code Traffic}), counted the same way for both rules: with {@code Collective.direct()} the reduce is
 * every replica that takes part, other than the root, sending its copy of each array to the root
 * (gradients and running statistics; with parameter averaging, parameters, running statistics and
 * optimizer state), and the broadcast is the root sending the result to each of the other k - 1 replicas
 * (with gradient averaging the updated parameters, as large as the gradients). So k replicas that all
 * take part move 2(k - 1) copies of every array, virtual replicas included (they count what k devices
 * would move), and a single replica synchronises nothing: 0 syncs and 0 bytes.
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
    long step(ReplicaParameters replicas, Optimizer optimizer, int active);

    /**
     * Leaves every replica with the same parameters at the end of an epoch or when training stops,
     * and starts a new averaging period; returns the bytes synchronised, 0 when nothing was pending.
     */
    default long finish(ReplicaParameters replicas, Optimizer optimizer) {
        return 0;
    }

    /**
     * The bytes of optimizer state each replica holds (index i for replica i), read from the
     * optimizer's own state arrays: by default all of it on replica 0, which updates every parameter.
     */
    default long[] optimizerStateBytes(ReplicaParameters replicas, Optimizer optimizer) {
        OptimizerState state = OptimizerState.of(optimizer);
        long[] bytes = new long[replicas.size()];
        for (var p : replicas.parameters()) {
            if (p.requiresGradient()) {
                bytes[0] += state.bytes(p.getId(), replicas.get(0).device());
            }
        }
        return bytes;
    }

    /** One line stating the rule, for logs and notebooks. */
    String describe();
}
