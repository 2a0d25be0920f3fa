package org.d2l.multigpu.parallel;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * Synchronous data parallelism: gradients are reduced into replica 0, the optimizer updates it once
 * per global step, and its parameters are copied to every other replica; running statistics (such
 * as BatchNorm's running mean and variance) are averaged over the replicas.
 */
public final class GradientAveraging implements ReplicaSync {

    private final boolean mean;

    private GradientAveraging(boolean mean) {
        this.mean = mean;
    }

    /** The correct rule: the gradient is the mean over the whole global batch, whatever the shard sizes. */
    public static GradientAveraging mean() {
        return new GradientAveraging(true);
    }

    /**
     * DJL's multi-device rule, for comparison only: per-device mean gradients are summed, so k devices
     * act like a k times larger learning rate.
     */
    public static GradientAveraging sum() {
        return new GradientAveraging(false);
    }

    @Override
    public float lossWeight(long shardSize, long batchSize, int replicas) {
        return mean ? (float) shardSize / batchSize : 1f;
    }

    /**
     * Sums the gradients of the first {@code active} replicas into replica 0 (the others hold none:
     * a last batch smaller than k gives only some replicas a shard, weighted by its share), updates
     * replica 0 once and copies it to every replica; running statistics are averaged over the active
     * replicas. Bytes: the reduce (active - 1 copies) plus the broadcast (k - 1 copies) of every array.
     */
    @Override
    public long step(Replicas replicas, Optimizer optimizer, int active) {
        int k = replicas.size();
        ReplicaStore first = replicas.get(0);
        long bytes = 0;
        for (Parameter p : replicas.parameters()) {
            String id = p.getId();
            NDArray w0 = first.get(id);
            if (p.requiresGradient()) {
                // getGradient() returns a new handle on the gradient each call: close each one used.
                try (NDArray g0 = w0.getGradient()) {
                    for (int i = 1; i < active; i++) {
                        try (NDArray gi = replicas.get(i).get(id).getGradient()) {
                            OnDevice.addInto(gi, g0);
                            OnDevice.zero(gi);
                        }
                    }
                    optimizer.update(id, w0, g0);
                    OnDevice.zero(g0); // PyTorch adds up gradients: start the next step from zero
                }
            } else if (active > 1) {
                for (int i = 1; i < active; i++) {
                    OnDevice.addInto(replicas.get(i).get(id), w0);
                }
                w0.divi(active);
            }
            for (int i = 1; i < k; i++) {
                OnDevice.copyInto(w0, replicas.get(i).get(id));
            }
            bytes += Replicas.byteSize(w0) * ((active - 1) + (k - 1));
        }
        replicas.synced();
        return bytes;
    }

    @Override
    public String describe() {
        return mean
                ? "gradients averaged over the global batch, one optimizer update per step, "
                        + "running statistics averaged over replicas"
                : "per-device gradients summed (DJL's rule: k devices act like k times the learning rate)";
    }
}
