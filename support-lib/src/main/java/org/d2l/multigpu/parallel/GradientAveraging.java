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

    @Override
    public long step(Replicas replicas, Optimizer optimizer, int active) {
        if (active != replicas.size()) {
            throw new IllegalStateException("Gradient averaging needs a shard on every replica: "
                    + active + " of " + replicas.size() + " replicas computed gradients.");
        }
        ReplicaStore first = replicas.get(0);
        long bytes = 0;
        for (Parameter p : replicas.parameters()) {
            String id = p.getId();
            NDArray w0 = first.get(id);
            // every replica hands its gradient (or running statistics) in for the mean
            bytes += w0.size() * w0.getDataType().getNumOfBytes() * replicas.size();
            if (p.requiresGradient()) {
                // getGradient() returns a new handle on the gradient each call: close each one used.
                try (NDArray g0 = w0.getGradient()) {
                    for (int i = 1; i < replicas.size(); i++) {
                        try (NDArray gi = replicas.get(i).get(id).getGradient()) {
                            OnDevice.addInto(gi, g0);
                            OnDevice.zero(gi);
                        }
                    }
                    optimizer.update(id, w0, g0);
                    OnDevice.zero(g0); // PyTorch adds up gradients: start the next step from zero
                }
                for (int i = 1; i < replicas.size(); i++) {
                    OnDevice.copyInto(w0, replicas.get(i).get(id));
                }
            } else if (replicas.size() > 1) {
                for (int i = 1; i < replicas.size(); i++) {
                    OnDevice.addInto(replicas.get(i).get(id), w0);
                }
                w0.divi(replicas.size());
                for (int i = 1; i < replicas.size(); i++) {
                    OnDevice.copyInto(w0, replicas.get(i).get(id));
                }
            }
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
