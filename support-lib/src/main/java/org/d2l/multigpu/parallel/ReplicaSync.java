package org.d2l.multigpu.parallel;

import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * How replicas are kept in step: the weight of each replica's loss and what happens after every
 * replica has run its backward pass (for example gradient averaging, or in future parameter
 * averaging every N steps).
 */
public interface ReplicaSync {

    /** The factor applied to the mean loss of a shard of {@code shardSize} out of {@code batchSize} examples. */
    float lossWeight(long shardSize, long batchSize, int replicas);

    /**
     * Brings the replicas in step after a global step's backward passes: {@code params} are the
     * block's parameters, replica 0 holds the block's own arrays.
     */
    void step(List<ReplicaStore> replicas, List<Parameter> params, Optimizer optimizer);

    /** One line stating the rule, for logs and notebooks. */
    String describe();
}
